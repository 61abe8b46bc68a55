import Glibc

/// The LMDB environment with bundleidx's databases (docs/index-format.md). The only type that
/// knows database names; everything else goes through `IndexSnapshot` or `IndexWriter`.
package final class IndexStore: @unchecked Sendable {
    static let formatName = "bundleidx"
    /// The named databases of an index (docs/index-format.md).
    static let ownDatabases: Set<String> = ["meta", "bundles", "identifiers", "resources", "strings", "retired"]
    /// 2: type records hold positions in the directory record instead of entries.
    /// 3: a name record holding just its own name is the compact `E` form (exact-name records).
    /// 4: 20-byte resource keys (a 32-bit bundle id).
    /// 5: exact-name records of 5 bytes (flags in the tag, no rank).
    /// 6: front-coded directory listings in blocks; type records hold entry indices.
    /// 7: the `strings` database (every entry of every strings table).
    /// 8: a bundle's lproj names in readdir order.
    /// 9: strings entries in chunks per table instead of a record per entry; a bundle record's
    ///    parsed Info.plist dictionaries carry their byte length.
    /// 10: a bundle record without its path (the key), its root as a length of the path.
    /// 11: directories stamped only in their directory records, not again in the bundle record.
    /// 12: well-known property-list dictionary keys stored as numbers (`InfoPlistKeys`).
    /// 13: no name, exact-name or type records: a directory record answers names and types
    ///     from its listing, and the names variants answer from a list of them it carries.
    /// 14: a directory record's key is 12 bytes (no item hash of 0), its listing's block table
    ///     leaves out the first block's offset (always 0), a bundle record's scan time is a varint.
    /// 15: a directory record keeps what an incremental walk does with its folder (flag bits) and
    ///     the indices of its strings tables (`UnchangedWalkPlan`).
    /// 16: a bundle record keeps its directory marks (`DirectoryMarks`).
    /// 17: stamps hold change times, not modification times, and stamp where links not followed
    ///     lead and the folders a scan could not list; scan times in nanoseconds.
    /// 18: stamps keep inode numbers where a path can come to name a copy; scan times in
    ///     milliseconds (docs/scanning.md, "Inode numbers").
    /// 19: the `retired` database: a bundle that leaves the index leaves its id for its path,
    ///     and one that comes there again gets it back (`IndexWriter.addBundle`).
    static let formatVersion: UInt32 = 19

    /// The most bytes an LMDB key (and a value of the `identifiers` database, which keeps a
    /// sorted list of paths per identifier) may have: MDB_MAXKEYSIZE, 511 in Debian's liblmdb
    /// (`mdb_env_get_maxkeysize`, checked by `LongKeyTests`). A bundle path or an identifier longer
    /// than this cannot be a key: writing one failed the whole build, and stopped a watcher.
    package static let maximumKeyBytes = 511

    let path: String
    package let environment: LMDBEnvironment
    let meta: MDB_dbi_t
    let bundles: MDB_dbi_t
    let identifiers: MDB_dbi_t
    let resources: MDB_dbi_t
    let strings: MDB_dbi_t
    /// The ids of bundles that left the index, kept for their paths (`RetiredIDs`).
    let retired: MDB_dbi_t

    typealias MDB_dbi_t = UInt32

    private init(path: String, environment: LMDBEnvironment, dbis: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)) {
        self.path = path
        self.environment = environment
        (meta, bundles, identifiers, resources, strings, retired) = dbis
    }

    /// Opens an existing index for reading. Never creates anything. With `neverWritesHere`, the
    /// process promises no build or watcher will write the index: the environment is then
    /// read-only even when the files are writable (see `environment`).
    package static func openForReading(path: String, neverWritesHere: Bool = false) throws -> IndexStore {
        var st = stat()
        guard stat(path, &st) == 0 else {
            // Only a path that is not there is a missing index: a folder on the way that may not
            // be searched (EACCES) is said as such, not as "no index".
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw BundleIndexError.missing(path: path) }
            throw BundleIndexError.storage(path: path, code: code, message: String(cString: strerror(code)))
        }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            throw BundleIndexError.notAnIndex(path: path, reason: "it is a file, an index is a directory")
        }
        guard access(path + "/data.mdb", F_OK) == 0 else {
            let code = errno
            if code == ENOENT { throw BundleIndexError.notAnIndex(path: path, reason: "it has no data.mdb") }
            // A folder the caller may not search: the index's error (exit 3), as for a data.mdb
            // it may not read, which LMDB reports (both said "Permission denied", with 5 and 3).
            throw BundleIndexError.storage(path: path, code: code, message: String(cString: strerror(code)))
        }
        let env = try environment(path: path, readOnly: true, sharedWithWriters: !neverWritesHere)
        try checkLength(path: path, environment: env)
        return try attach(path: path, environment: env, create: false)
    }

    #if DEBUG
    /// Test seam, compiled only in debug builds: the index opened as a reader without write
    /// access to `lock.mdb` opens it (`MDB_NOLOCK`), in an environment of its own, beside the
    /// process's shared one that the test's builds write through.
    static func openLocklessForTesting(path: String) throws -> IndexStore {
        try attach(path: path, environment: LMDBEnvironment(path: path, readOnly: true, lockless: true), create: false)
    }
    #endif

    /// A truncated data file would make LMDB read past the end of its mapping (SIGBUS), for a
    /// reader and a writer alike. LMDB itself may leave never-written free pages past the end of
    /// the file; every bundleidx commit extends the file over them (`coverUsedPages`), so a
    /// shortfall that outlasts a commit in flight (waited for up to 0.2 s) is damage.
    private static func checkLength(path: String, environment env: LMDBEnvironment) throws {
        var st = stat()
        for attempt in 0..<10 {
            let needed = env.usedBytes()
            guard stat(path + "/data.mdb", &st) == 0, needed > Int(st.st_size) else { return }
            if attempt == 9 {
                throw BundleIndexError.corrupt(path: path, reason: "data.mdb is truncated (\(st.st_size) of \(needed) bytes)")
            }
            usleep(20_000)
        }
    }

    /// Opens or creates an index for writing. An existing directory must be empty or an index.
    /// `mapSize` replaces the size the map would get (`StorageSpace.mapSize`), for tests that
    /// start with a tiny map; it applies only when this process has no environment for `path` yet.
    package static func openForWriting(path: String, mapSize: Int? = nil) throws -> IndexStore {
        var st = stat()
        if stat(path, &st) != 0 {
            try makeDirectories(path)
        } else if st.st_mode & S_IFMT != S_IFDIR {
            throw BundleIndexError.refusingToOverwrite(path: path, reason: "it is a file, not an index directory")
        }
        // Writers that start together on a new folder take turns from the emptiness check to the
        // committed metadata: the second sees an index, not "a folder that is not empty".
        let folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw BundleIndexError.systemCall("open \(path)") }
        defer { close(folder) }
        while flock(folder, LOCK_EX) != 0 {
            guard errno == EINTR else { throw BundleIndexError.systemCall("flock \(path)") }
        }
        let hasData = access(path + "/data.mdb", F_OK) == 0
        // Without a data file, only index files of its own may be there: a `watch.lock` a
        // watcher left, a `lock.mdb` of a first build that failed. Refusing such a folder made
        // a replaced index of a watched tree unbuildable for good (review w26).
        if !hasData && !holdsOnlyIndexFiles(path) {
            throw BundleIndexError.refusingToOverwrite(path: path, reason: "the directory is not empty and holds no index")
        }
        let env = try environment(path: path, readOnly: false, mapSize: mapSize)
        // A writer clears the slots of readers that died without ending their transaction (a
        // query killed by SIGKILL): they pin old pages, so the file grows with every rebuild,
        // and 512 of them lock every reader out (MDB_READERS_FULL). Readers leave it to writers.
        env.clearStaleReaders()
        if hasData { try checkLength(path: path, environment: env) }
        let store = try attach(path: path, environment: env, create: true)
        store.coverUsedPages()   // after a writer died between its commit and its extension
        return store
    }

    /// The process's environment for `path`, LMDB's errors in the index's terms.
    private static func environment(path: String, readOnly: Bool, sharedWithWriters: Bool = true,
                                    mapSize: Int? = nil) throws -> LMDBEnvironment {
        try checkFiles(path)
        if !readOnly { try StorageSpace.reserveLockFile(indexPath: path) }
        let mapSize = mapSize ?? StorageSpace.mapSize(indexPath: path)
        // LMDB allows one environment per file in a process: a second one takes the process's
        // lock on lock.mdb for "no other user", clears the reader table, and its writer may then
        // reuse pages the first one's readers still read. So a reader that may write the index
        // opens it as a writer would (read-write, no MDB_RDONLY; it still only reads), and a
        // build or watcher later in the same process shares that environment (LMDBEnvironment.shared).
        let writable = !readOnly || (sharedWithWriters && mayWriteIndex(path))
        do {
            return try LMDBEnvironment.shared(path: path, readOnly: !writable,
                                              lockless: !writable && !mayWriteLockFile(path), mapSize: mapSize)
        } catch let e as LMDBError where e.systemErrno == ENOMEM {
            throw StorageSpace.addressSpaceError(path: path, mapSize: mapSize) ?? translate(e, path: path)
        } catch let e as LMDBError {
            throw translate(e, path: path)
        }
    }

    /// Whether this process may write both files of an existing index.
    private static func mayWriteIndex(_ path: String) -> Bool {
        faccessat(AT_FDCWD, path + "/data.mdb", W_OK, AT_EACCESS) == 0 && mayWriteLockFile(path)
    }

    /// Whether this process may write `lock.mdb` (or create it): a reader that may not reads
    /// without it (`LMDBEnvironment.lockless`; docs/reliability.md, "A shared index").
    private static func mayWriteLockFile(_ path: String) -> Bool {
        if faccessat(AT_FDCWD, path + "/lock.mdb", W_OK, AT_EACCESS) == 0 { return true }
        return errno == ENOENT && faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0
    }

    private static func attach(path: String, environment env: LMDBEnvironment, create: Bool) throws -> IndexStore {
        do {
            let txn = try LMDBTransaction(environment: env, readOnly: !create)
            defer { txn.abort() }
            // A writer claims only an environment of its own: LMDB's main database names the
            // named databases, so anything there but bundleidx's own is somebody else's data —
            // unless its `meta` says it is an index (of another format version, which may have
            // databases this one does not know: a build must still replace it). Format 18 looked
            // for databases first, and took format 19's `retired` for another program's.
            let existingMeta = try env.openDatabase("meta", in: txn, create: false)
            let claimed = try existingMeta.map { try txn.get($0, key: Array("format".utf8)) == Array(formatName.utf8) } ?? false
            if create, !claimed, let foreign = try env.namedDatabases(in: txn).first(where: { !ownDatabases.contains($0) }) {
                throw BundleIndexError.notAnIndex(path: path, reason: "it is an LMDB environment of another program "
                                                  + "(it has a database \"\(foreign)\"); bundleidx leaves it alone")
            }
            guard let metaDbi = try existingMeta ?? env.openDatabase("meta", in: txn, create: create) else {
                throw BundleIndexError.notAnIndex(path: path, reason: "it is an LMDB environment without bundleidx metadata")
            }
            let format = try txn.get(metaDbi, key: Array("format".utf8))
            if let format {
                guard format == Array(formatName.utf8) else {
                    throw BundleIndexError.notAnIndex(path: path, reason: "its format is \(String(decoding: format, as: UTF8.self))")
                }
                guard let v = try txn.get(metaDbi, key: Array("version".utf8)) else {
                    throw BundleIndexError.corrupt(path: path, reason: "the format version is missing")
                }
                guard v.count == 4 else {
                    throw BundleIndexError.corrupt(path: path, reason: "the format version has \(v.count) bytes, not 4")
                }
                let version = v.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }.littleEndian
                guard version == formatVersion else {
                    throw BundleIndexError.unsupportedVersion(path: path, found: version, supported: formatVersion)
                }
                // An index no build (or watcher) has committed to yet holds nothing to answer
                // from: a first build that failed (a full disk) or has not finished. Read, it
                // would answer "not in the index" for everything, as if it were complete.
                if !create, try txn.get(metaDbi, key: Array(MetaKey.generation.rawValue.utf8)) == nil {
                    throw BundleIndexError.notAnIndex(path: path, reason: "no build of it has finished (make it with "
                                                      + "bundleidx build ROOT... --index \(path))")
                }
            } else if create {
                // A new environment: claim it.
                try txn.put(metaDbi, key: Array("format".utf8), value: Array(formatName.utf8))
                try txn.put(metaDbi, key: Array("version".utf8), value: withUnsafeBytes(of: formatVersion.littleEndian) { Array($0) })
            } else {
                throw BundleIndexError.notAnIndex(path: path, reason: "it is an LMDB environment without bundleidx metadata")
            }
            func open(_ name: String, dupSort: Bool = false) throws -> UInt32 {
                guard let dbi = try env.openDatabase(name, in: txn, create: create, dupSort: dupSort) else {
                    throw BundleIndexError.corrupt(path: path, reason: "the \(name) database is missing")
                }
                return dbi
            }
            let dbis = (metaDbi, try open("bundles"), try open("identifiers", dupSort: true), try open("resources"),
                        try open("strings"), try open("retired"))
            // Database handles become shared by the environment only after a commit.
            try txn.commit()
            return IndexStore(path: path, environment: env, dbis: dbis)
        } catch let e as LMDBError {
            throw translate(e, path: path)
        }
    }

    /// LMDB does not write pages a transaction allocated and freed again ("loose" pages), so
    /// the newest meta page can count pages past the end of the file. Extending the file over
    /// them (sparse, never shrinking it) keeps "file shorter than the meta says" a sign of
    /// damage that readers can check cheaply.
    func coverUsedPages() {
        var st = stat()
        let data = path + "/data.mdb"
        let needed = environment.usedBytes()
        guard stat(data, &st) == 0, needed > Int(st.st_size) else { return }
        let fd = open(data, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = ftruncate(fd, off_t(needed))
        close(fd)
    }

    static func translate(_ e: LMDBError, path: String) -> BundleIndexError {
        switch e {
        case .invalid: return .notAnIndex(path: path, reason: "data.mdb is not an LMDB database")
        case .versionMismatch: return .notAnIndex(path: path, reason: "data.mdb was written by an incompatible LMDB")
        case .corrupted, .panic: return .corrupt(path: path, reason: e.description)
        case .mapFull, .mapResized:
            return StorageSpace.mapOutgrownError(e, path: path)
        default:
            if e.systemErrno == EIO, let full = StorageSpace.diskFullError(path: path) { return full }
            return .storage(path: path, code: e.code, message: e.message)
        }
    }

    private static func makeDirectories(_ path: String) throws {
        var current = path.utf8.first == UInt8(ascii: "/") ? "" : "."
        for part in PathText.components(path, omittingEmpty: true) {
            current += "/" + part
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                let code = errno
                throw BundleIndexError.storage(path: path, code: code, message: String(cString: strerror(code)))
            }
        }
    }

    @inline(__always)  // lets the query's closure inline: its captures then cost no retains
    package func read<T>(_ body: (IndexSnapshot) throws -> T) throws -> T {
        do {
            return try environment.read { txn in try body(IndexSnapshot(store: self, txn: txn)) }
        } catch let e as LMDBError {
            throw Self.translate(e, path: path)
        } catch let e as IndexFormatError {
            throw BundleIndexError.corrupt(path: path, reason: e.description)
        }
    }

    /// Runs `body` in a write transaction. When the data outgrows the map (MDB_MAP_FULL), the
    /// transaction is aborted, the map grown (`growMap`) and `body` run again from the start,
    /// so `body` must begin from the state it had before the first run (it starts a build or
    /// a watcher's batch over); the same after another process grew the map (MDB_MAP_RESIZED).
    /// With `emptied`, the transaction first empties every database but the index's format,
    /// version, generation and watcher state (`emptyContents`): a build that replaces what an
    /// index held which it could not read, in the same commit as what it writes instead.
    /// A shortage of descriptors or memory that a file-system question met while `body` ran
    /// (`ShortageLog`: it answered as if a path were not there) aborts the transaction with
    /// that error: what `body` scanned may lack what it could not look at.
    package func write<T>(emptied: Bool = false, _ body: (IndexWriter) throws -> T) throws -> T {
        var growths = 0
        while true {
            do {
                let result = try environment.write { txn in
                    let shortages = ShortageLog.mark()
                    if emptied { try emptyContents(txn) }
                    let writer = try IndexWriter(store: self, txn: txn)
                    let result = try body(writer)
                    try writer.writeHeldRecords()
                    try ShortageLog.throwIfNoted(since: shortages)
                    return result
                }
                coverUsedPages()
                return result
            } catch LMDBError.mapFull where growths < Self.mapGrowthsPerWrite {
                growths += 1
                try growMap()
            } catch LMDBError.mapResized where growths < Self.mapGrowthsPerWrite {
                growths += 1
                try resizeMap(0, from: environment.mapSize())
            } catch let e as LMDBError {
                throw Self.translate(e, path: path)
            } catch let e as IndexFormatError {
                throw BundleIndexError.corrupt(path: path, reason: e.description)
            }
        }
    }

    /// Empties the bundles, identifiers, resources, strings and retired databases (`mdb_drop`:
    /// LMDB frees their pages, reading none of the records) and the meta values a build writes,
    /// but the next bundle id: a reader that opened a bundle before holds its id, and an id given
    /// again to another bundle made it answer with that bundle's files (review w26); with new
    /// ids it finds nothing until it opens the bundle again.
    private func emptyContents(_ txn: LMDBTransaction) throws {
        for dbi in [bundles, identifiers, resources, strings, retired] { try txn.clear(dbi) }
        var keys: [MetaKey] = [.roots, .declaredBundles, .builtAt, .buildSeconds]
        // A next id out of range is damage itself: ids then start again.
        if let next = try metaU64(.nextBundleID, in: txn), next > ResourceKey.maximumBundleID { keys.append(.nextBundleID) }
        for key in keys {
            _ = try txn.delete(meta, key: Array(key.rawValue.utf8))
        }
    }

    /// Doubling from the smallest map LMDB accepts reaches a terabyte in 30 steps.
    static let mapGrowthsPerWrite = 40

    /// Doubles the map (within an address-space limit; `StorageSpace.grownMapSize`), or says
    /// why it cannot grow. No transaction of this writer is open: the full one was aborted.
    func growMap() throws {
        let current = environment.mapSize()
        let target = try StorageSpace.grownMapSize(path: path, current: current)
        guard StorageSpace.canReserve(target - current) else {
            throw StorageSpace.growthError(path: path, current: current, target: target, code: ENOMEM)
        }
        try resizeMap(target, from: current)
    }

    private func resizeMap(_ target: Int, from current: Int) throws {
        do {
            try environment.setMapSize(target)
        } catch let e as LMDBError {
            throw StorageSpace.growthError(path: path, current: current, target: target == 0 ? current : target,
                                           code: e.code > 0 ? e.code : EIO)
        }
    }
}
