import CLMDB
import CLMDBCalls
import Synchronization

import Glibc

/// Runs one call into LMDB counted for the crash guard (`MappedReadGuard`, `lmdb_calls.h`): LMDB
/// trusts the pages it maps, and a damaged one can make it follow a pointer anywhere, so a fault
/// inside such a call is reported as a damaged index wherever it lands. Only the calls that walk
/// pages are counted (gets, cursor steps, puts, deletes, commits, opening a database or the
/// environment): `mdb_env_info` and `mdb_env_stat`, which every lookup's generation check asks,
/// and the read transactions' reset and renew read the meta pages and the reader table, whose
/// faults lie inside the map anyway; counting them cost the drop-in's repeat asks ~20 %
/// (two calls of `__tls_get_addr` each).
@inline(__always)
func intoLMDB<T>(_ call: () throws -> T) rethrows -> T {
    bundleidx_lmdb_enter()
    defer { bundleidx_lmdb_leave() }
    return try call()
}

/// An LMDB environment: one index directory (`data.mdb` + `lock.mdb`).
///
/// Opened with `MDB_NOTLS`, so read transactions are not tied to threads and many threads may
/// read at once; writes are serialised by LMDB's (robust, process-shared) writer mutex.
///
/// A reader that may not write `lock.mdb` (another user of a shared index, a read-only file
/// system) opens it `lockless` (`MDB_NOLOCK`): it takes no slot in the reader table, so nothing
/// keeps a writer from reusing the pages of its snapshot, and each read checks afterwards that
/// they cannot have been reused (`read`).
package final class LMDBEnvironment: @unchecked Sendable {
    let handle: OpaquePointer
    let path: String
    let readOnly: Bool
    let lockless: Bool
    /// The transactions this process has open on the environment, and the reset read
    /// transactions kept for the next read (`mdb_txn_renew` reuses the reader slot and the
    /// transaction object, where begin/abort would allocate and lock each time). The count
    /// lives under the lock the read path takes anyway to pick an idle reader: resizing the map
    /// (`setMapSize`) is legal only while no transaction of this process is open.
    private let transactions = Mutex<Transactions>(Transactions())

    private struct Transactions {
        var idle: [LMDBTransaction] = []
        var open = 0
        /// True while the map is being resized: transactions wait to begin.
        var resizing = false
        /// A resize failed after LMDB had unmapped the file: nothing may read it any more.
        var unmapped = false
    }

    /// 1 TiB of address space: the file only grows as pages are used, the map is virtual.
    /// Under an address-space limit (`ulimit -v`) the map is smaller (`StorageSpace.mapSize`).
    static let defaultMapSize = 1 << 40

    package init(path: String, readOnly: Bool, lockless: Bool = false, mapSize: Int = defaultMapSize,
         maxDatabases: UInt32 = 8) throws {
        var env: OpaquePointer?
        try check(mdb_env_create(&env))
        guard let env else { throw LMDBError.panic }
        do {
            try check(mdb_env_set_maxdbs(env, maxDatabases))
            try check(mdb_env_set_mapsize(env, mapSize))
            try check(mdb_env_set_maxreaders(env, 512))
            try check(mdb_env_set_assert(env) { _, _ in MappedReadGuard.reportFailedAssertion() })
            var flags = UInt32(MDB_NOTLS | MDB_NORDAHEAD)
            if readOnly { flags |= UInt32(MDB_RDONLY) }
            if lockless { flags |= UInt32(MDB_NOLOCK) }
            try check(intoLMDB { mdb_env_open(env, path, flags, 0o644) })
        } catch {
            mdb_env_close(env)
            throw error
        }
        self.handle = env
        self.path = path
        self.readOnly = readOnly
        self.lockless = lockless
        registerWithFaultGuard()
    }

    /// Tells the crash guard (`MappedReadGuard`) which file this environment maps; where it is
    /// mapped, before or after a resize, the guard looks up when a fault comes.
    private func registerWithFaultGuard() {
        var fd: Int32 = -1
        if mdb_env_get_fd(handle, &fd) == 0 { MappedRanges.register(dataFile: fd) }
    }

    /// `mdb_reader_check`: frees the reader slots of processes that no longer exist; returns
    /// how many.
    @discardableResult
    func clearStaleReaders() -> Int {
        var dead: Int32 = 0
        return intoLMDB { mdb_reader_check(handle, &dead) } == 0 ? Int(dead) : 0
    }

    /// LMDB forbids opening one environment twice in a process: closing either copy releases
    /// the other's locks and reader slots. Every open goes through here, so a process shares
    /// one environment per index (a read-write one serves reads too).
    /// Keyed by the index directory's device and inode, which every spelling of its path shares
    /// (one `stat`, where resolving the path took a `readlink` per component).
    private static let registry = Mutex<[FileIdentity: WeakEnvironment]>([:])

    private struct WeakEnvironment {
        weak var environment: LMDBEnvironment?
    }

    static func shared(path: String, readOnly: Bool, lockless: Bool = false,
                       mapSize: Int = defaultMapSize) throws -> LMDBEnvironment {
        var st = stat()
        guard stat(path, &st) == 0 else {
            // No directory to share: LMDB's open fails and says why.
            return try LMDBEnvironment(path: path, readOnly: readOnly, lockless: lockless, mapSize: mapSize)
        }
        let key = FileIdentity(st)
        return try registry.withLock { table in
            if let env = table[key]?.environment {
                if readOnly || !env.readOnly { return env }
                // A second environment of the same file would clear the reader table of the
                // first (IndexStore.environment): a writer cannot join a read-only one.
                throw LMDBError.other(code: EBUSY, message: "this process already reads the index read-only "
                                      + "(it had no write access when it opened it); it cannot also write it")
            }
            let env = try LMDBEnvironment(path: path, readOnly: readOnly, lockless: lockless, mapSize: mapSize)
            table[key] = WeakEnvironment(environment: env)
            return env
        }
    }

    deinit {
        endIdleReads()
        mdb_env_close(handle)
    }

    /// Ends the idle read transactions kept for the next read, which frees their slots in the
    /// reader table. A process that exits without closing the environment (a fresh `query`)
    /// calls this first. Otherwise its slots stay taken under its dead pid for as long as another
    /// process has the index open (LMDB wipes the table only for a process that opens it alone),
    /// and with a watcher running they filled the table's 512 slots within a minute.
    package func endIdleReads() {
        transactions.withLock { t in
            for txn in t.idle { txn.abort() }
            t.idle.removeAll()
        }
    }

    /// Opens (and with `create`, creates) a named database inside a write transaction.
    func openDatabase(_ name: String, in txn: LMDBTransaction, create: Bool, dupSort: Bool = false) throws -> MDB_dbi? {
        var dbi: MDB_dbi = 0
        var flags: UInt32 = create ? UInt32(MDB_CREATE) : 0
        if dupSort { flags |= UInt32(MDB_DUPSORT) }
        let rc = intoLMDB { mdb_dbi_open(txn.handle, name, flags, &dbi) }
        if rc == MDB_NOTFOUND { return nil }
        try check(rc)
        return dbi
    }

    /// The keys of LMDB's unnamed main database, which names every named database.
    func namedDatabases(in txn: LMDBTransaction) throws -> [String] {
        var main: MDB_dbi = 0
        try check(intoLMDB { mdb_dbi_open(txn.handle, nil, 0, &main) })
        var names: [String] = []
        try txn.scan(main, prefix: []) { key, _ in
            names.append(String(decoding: key, as: UTF8.self))
            return true
        }
        return names
    }

    /// The id of the newest committed transaction (`mdb_env_info`'s `me_last_txnid`): it moves
    /// with every commit, so a reader can tell the index changed without starting a transaction.
    ///
    /// It can run ahead of what a read sees: LMDB writes a commit's meta page (synchronously,
    /// flushed to the disk) before it tells readers of the commit, and `mdb_env_info` reads the
    /// meta pages. For those milliseconds a read transaction begun now still gets the commit
    /// before; `visibleTransactionID()` says which one. A value read and labelled with this id
    /// may therefore be one commit old: label what is read with the id of the transaction that
    /// read it.
    func newestTransactionID() -> UInt64 {
        var info = MDB_envinfo()
        guard mdb_env_info(handle, &info) == 0 else { return 0 }
        return UInt64(info.me_last_txnid)
    }

    /// The id of the commit a read transaction begun now sees (one renewed and reset).
    func visibleTransactionID() throws -> UInt64 {
        try read { $0.id }
    }

    /// Bytes of the data file in use according to the newest meta page (what `stats` reports).
    package func usedBytes() -> Int {
        var info = MDB_envinfo()
        var stat = MDB_stat()
        guard mdb_env_info(handle, &info) == 0, mdb_env_stat(handle, &stat) == 0 else { return 0 }
        // A damaged meta page may name any last page: the product, past Int.max, is a file no
        // disk holds (`IndexStore.checkLength` then calls the index truncated), not a trap.
        let (pages, overflow1) = Int(clamping: info.me_last_pgno).addingReportingOverflow(1)
        let (bytes, overflow2) = pages.multipliedReportingOverflow(by: Int(stat.ms_psize))
        return overflow1 || overflow2 ? .max : bytes
    }

    /// Runs `body` in a read-only transaction (a fresh snapshot of the newest commit), which
    /// is reset afterwards and kept for the next read. A map that another process's writer
    /// outgrew (MDB_MAP_RESIZED, met when the transaction begins) is resized to the size that
    /// writer committed, once, and the read begins again.
    @inline(__always)
    package func read<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        do {
            return try readOnce(body)
        } catch LMDBError.mapResized {
            try setMapSize(0)
            return try readOnce(body)
        }
    }

    @inline(__always)
    private func readOnce<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        let txn = try beginRead()
        defer { endRead(txn) }
        guard lockless else { return try body(txn) }
        return try readWithoutLock(txn, body)
    }

    /// A read transaction for a caller that ends it itself with `endRead`: `read` split in two,
    /// for a lookup that begins its transaction only when it first needs the index
    /// (`DirectorySource`). Nil for a lockless environment, whose reads must be checked after
    /// they end (`read` does that). A map another process outgrew throws `mapResized`; `read`
    /// handles it.
    package func beginReadTransaction() throws -> LMDBTransaction? {
        lockless ? nil : try beginRead()
    }

    /// Ends a transaction `beginReadTransaction` began: reset, and kept for the next read.
    package func endRead(_ txn: LMDBTransaction) {
        txn.reset()
        transactions.withLock { t in
            t.open -= 1
            if t.idle.count < 64 { t.idle.append(txn) } else { txn.abort() }
        }
    }

    /// An idle reader renewed, or a new one; counted as open.
    private func beginRead() throws -> LMDBTransaction {
        let idle = try enter(takingIdle: true)
        do {
            if let idle, (try? idle.renew()) != nil { return idle }
            return try LMDBTransaction(environment: self, readOnly: true)
        } catch {
            transactions.withLock { $0.open -= 1 }
            throw error
        }
    }

    /// Counts a transaction about to begin, waiting while the map is resized; with
    /// `takingIdle`, hands out an idle reader if there is one.
    private func enter(takingIdle: Bool) throws -> LMDBTransaction? {
        while true {
            let admission: Admission = transactions.withLock { t in
                if t.unmapped { return .unmapped }
                guard !t.resizing else { return .wait }
                t.open += 1
                return .admitted(takingIdle ? t.idle.popLast() : nil)
            }
            switch admission {
            case .admitted(let idle): return idle
            case .wait: usleep(200)
            case .unmapped:
                throw LMDBError.other(code: ENOMEM, message: "the index map could not be mapped again after "
                                      + "resizing it; open the index again")
            }
        }
    }

    private enum Admission {
        case admitted(LMDBTransaction?)
        case wait
        case unmapped
    }

    /// A lockless read is kept only when its snapshot's pages cannot have been reused while it
    /// ran. LMDB's writer of transaction W reuses only pages freed by transactions up to W - 2
    /// (`mdb_find_oldest` without readers answers W - 1, and a free record is taken when its id
    /// is below that), and a page freed by transaction k was last live in snapshot k - 1; so the
    /// pages of snapshot T are rewritten at the earliest by the commit of T + 3. A read that
    /// ends while the newest commit is at most T + 1 saw only its own snapshot; otherwise (or
    /// when the read failed in a way a torn read could explain) it is read again, newer.
    private func readWithoutLock<T>(_ txn: LMDBTransaction, _ body: (LMDBTransaction) throws -> T) throws -> T {
        for _ in 0..<Self.locklessAttempts {
            do {
                let result = try body(txn)
                if newestTransactionID() <= txn.id + 1 { return result }
            } catch where newestTransactionID() <= txn.id + 1 {
                throw error
            } catch {}
            txn.reset()
            try txn.renew()
        }
        throw LMDBError.other(code: EAGAIN, message: "the index changed during every one of \(Self.locklessAttempts) "
                              + "reads made without its lock file")
    }

    /// How often a lockless read is tried before giving up (each retry follows two commits).
    static let locklessAttempts = 100

    /// Runs `body` in a write transaction: committed when `body` returns, aborted when it throws.
    func write<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        _ = try enter(takingIdle: false)
        defer { transactions.withLock { $0.open -= 1 } }
        let txn = try LMDBTransaction(environment: self, readOnly: false)
        do {
            let result = try body(txn)
            try txn.commit()
            return result
        } catch {
            txn.abort()
            throw error
        }
    }

    /// The size of the map (`mdb_env_info`'s `me_mapsize`).
    package func mapSize() -> Int {
        var info = MDB_envinfo()
        guard mdb_env_info(handle, &info) == 0 else { return 0 }
        return Int(info.me_mapsize)
    }

    /// `mdb_env_set_mapsize`: maps the file again with `size` bytes (0: the size the newest
    /// commit recorded, which another process's writer may have grown). LMDB allows it only
    /// while this process has no transaction open on the environment, since it unmaps the file
    /// under them: new transactions wait, and this waits for the open ones to end (up to
    /// `resizeWait` seconds, so a thread that resizes inside a read of its own fails instead of
    /// waiting forever). A failed remap leaves LMDB without a map; the environment then refuses
    /// every transaction.
    func setMapSize(_ size: Int) throws {
        while !transactions.withLock({ t -> Bool in
            if t.resizing { return false }
            t.resizing = true
            return true
        }) {
            usleep(200)
        }
        defer { transactions.withLock { $0.resizing = false } }
        let deadline = monotonicSeconds() + Self.resizeWait
        while transactions.withLock({ $0.open }) > 0 {
            guard monotonicSeconds() < deadline else {
                throw LMDBError.other(code: EBUSY, message: "the index map could not be resized: transactions of "
                                      + "this process stayed open for \(Int(Self.resizeWait)) s")
            }
            usleep(200)
        }
        let rc = intoLMDB { mdb_env_set_mapsize(handle, size) }
        if rc != 0 && rc != EINVAL {
            transactions.withLock { $0.unmapped = true }
        }
        try check(rc)
    }

    /// How long `setMapSize` waits for the transactions of other threads to end.
    static let resizeWait = 10.0
}
