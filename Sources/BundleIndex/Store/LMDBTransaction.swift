import CLMDB
import CLMDBCalls

import Glibc

/// One LMDB transaction, used by one thread at a time (read transactions move between threads
/// through the environment's pool; `MDB_NOTLS` allows it). Every `get` and cursor step is
/// counted in `reads`, which is how the tests
/// prove that a query does a bounded number of point reads.
package final class LMDBTransaction: @unchecked Sendable {
    private(set) var handle: OpaquePointer?
    let readOnly: Bool
    var reads = 0

    init(environment: LMDBEnvironment, readOnly: Bool) throws {
        var txn: OpaquePointer?
        var rc = intoLMDB { mdb_txn_begin(environment.handle, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn) }
        if rc == MDB_READERS_FULL {
            // Slots of dead processes are freed, then the begin is tried once more, even when this
            // process freed none: another process that met the full table at the same moment may
            // have freed them first.
            environment.clearStaleReaders()
            rc = intoLMDB { mdb_txn_begin(environment.handle, nil, readOnly ? UInt32(MDB_RDONLY) : 0, &txn) }
        }
        try check(rc)
        self.handle = txn
        self.readOnly = readOnly
    }

    deinit { abort() }

    /// `mdb_txn_reset`: releases the snapshot, keeps the reader slot (read-only transactions).
    func reset() {
        if let txn = handle { mdb_txn_reset(txn) }
    }

    /// `mdb_txn_renew`: a reset read transaction takes the newest snapshot again.
    func renew() throws {
        guard let txn = handle else { throw LMDBError.panic }
        reads = 0
        try check(mdb_txn_renew(txn))
    }

    /// `mdb_txn_id`: the snapshot's transaction id.
    var id: UInt64 { handle.map { UInt64(mdb_txn_id($0)) } ?? 0 }

    func commit() throws {
        guard let txn = handle else { return }
        handle = nil
        try check(intoLMDB { mdb_txn_commit(txn) })
    }

    func abort() {
        guard let txn = handle else { return }
        handle = nil
        mdb_txn_abort(txn)
    }

    /// Point read. The returned buffer points into the memory map and is valid only until the
    /// transaction ends: callers decode it before returning.
    func get(_ dbi: MDB_dbi, key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        reads += 1
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val()
        let rc = intoLMDB { mdb_get(handle, dbi, &k, &v) }
        if rc == MDB_NOTFOUND { return nil }
        try check(rc)
        return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
    }

    func get(_ dbi: MDB_dbi, key: [UInt8]) throws -> [UInt8]? {
        try key.withUnsafeBytes { k in try get(dbi, key: k).map { Array($0) } }
    }

    func put(_ dbi: MDB_dbi, key: [UInt8], value: [UInt8], append: Bool = false) throws {
        try key.withUnsafeBytes { k in
            try value.withUnsafeBytes { v in try put(dbi, key: k, value: v, append: append) }
        }
    }

    /// `mdb_put` from borrowed buffers (LMDB copies both). With `append`, keys must come in
    /// increasing order and land after every existing key: LMDB then fills pages completely.
    func put(_ dbi: MDB_dbi, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, append: Bool = false) throws {
        try check(putStatus(dbi, key: key, value: value, flags: append ? UInt32(MDB_APPEND) : 0))
    }

    /// `mdb_put` from borrowed buffers, its return code unchecked.
    private func putStatus(_ dbi: MDB_dbi, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: UInt32) -> Int32 {
        var kv = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var vv = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        return intoLMDB { mdb_put(handle, dbi, &kv, &vv, flags) }
    }

    /// `put` of a key that usually sorts after every key the database holds (bundle paths in
    /// the order of a sorted walk): appended (`MDB_APPEND`, which fills the last page before
    /// starting another) when it does, put in place when it does not. A plain put of increasing
    /// keys splits each full page in the middle and leaves it half empty.
    func putAppendingWhenLast(_ dbi: MDB_dbi, key: [UInt8], value: [UInt8]) throws {
        try key.withUnsafeBytes { k in
            try value.withUnsafeBytes { v in
                // MDB_APPEND refuses a key that does not sort after the last one with MDB_KEYEXIST.
                let rc = putStatus(dbi, key: k, value: v, flags: UInt32(MDB_APPEND))
                try check(rc == MDB_KEYEXIST ? putStatus(dbi, key: k, value: v, flags: 0) : rc)
            }
        }
    }

    /// Deletes a key (all its duplicates in a dupsort database, or only `value` when given).
    @discardableResult
    func delete(_ dbi: MDB_dbi, key: [UInt8], value: [UInt8]? = nil) throws -> Bool {
        try key.withUnsafeBytes { k in
            var kv = MDB_val(mv_size: k.count, mv_data: UnsafeMutableRawPointer(mutating: k.baseAddress))
            let rc: Int32
            if let value {
                rc = value.withUnsafeBytes { v in
                    var vv = MDB_val(mv_size: v.count, mv_data: UnsafeMutableRawPointer(mutating: v.baseAddress))
                    return intoLMDB { mdb_del(handle, dbi, &kv, &vv) }
                }
            } else {
                rc = intoLMDB { mdb_del(handle, dbi, &kv, nil) }
            }
            if rc == MDB_NOTFOUND { return false }
            try check(rc)
            return true
        }
    }

    /// A key and value in the memory map, valid only until the transaction ends (or, in a
    /// write transaction, the next write).
    typealias Pair = (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)

    /// `mdb_cursor_get` with `MDB_SET_RANGE`: `body` gets the first pair whose key is `key` or
    /// sorts after it (nil past the last key), and a function that steps the same cursor to
    /// the pair before that one (`MDB_PREV`, or `MDB_LAST` past the end). One cursor step, two
    /// when `body` asks for the pair before.
    func seek<T>(_ dbi: MDB_dbi, atOrAfter key: UnsafeRawBufferPointer,
                 _ body: (_ found: Pair?, _ previous: () throws -> Pair?) throws -> T) throws -> T {
        reads += 1
        var cursor: OpaquePointer?
        try check(intoLMDB { mdb_cursor_open(handle, dbi, &cursor) })
        defer { intoLMDB { mdb_cursor_close(cursor) } }
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val()
        let rc = intoLMDB { mdb_cursor_get(cursor, &k, &v, MDB_SET_RANGE) }
        if rc != MDB_NOTFOUND { try check(rc) }
        func pair() -> Pair {
            (UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size), UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
        }
        let found = rc == MDB_NOTFOUND ? nil : pair()
        return try body(found) {
            self.reads += 1
            let rc = intoLMDB { mdb_cursor_get(cursor, &k, &v, found == nil ? MDB_LAST : MDB_PREV) }
            if rc == MDB_NOTFOUND { return nil }
            try check(rc)
            return pair()
        }
    }

    /// Visits every (key, value) pair whose key starts with `prefix`, in key order. `body` returns
    /// false to stop early. Buffers are valid only during the call.
    func scan(_ dbi: MDB_dbi, prefix: [UInt8],
              _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        var cursor: OpaquePointer?
        try check(intoLMDB { mdb_cursor_open(handle, dbi, &cursor) })
        defer { intoLMDB { mdb_cursor_close(cursor) } }
        try prefix.withUnsafeBytes { p in
            var k = MDB_val(mv_size: p.count, mv_data: UnsafeMutableRawPointer(mutating: p.baseAddress))
            var v = MDB_val()
            var op = p.count == 0 ? MDB_FIRST : MDB_SET_RANGE
            while true {
                reads += 1
                let rc = intoLMDB { mdb_cursor_get(cursor, &k, &v, op) }
                if rc == MDB_NOTFOUND { return }
                try check(rc)
                let key = UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size)
                guard key.starts(with: p) else { return }
                if try !body(key, UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)) { return }
                op = MDB_NEXT
            }
        }
    }

    /// Deletes every key that starts with `prefix`; returns how many entries were removed.
    @discardableResult
    func deletePrefix(_ dbi: MDB_dbi, prefix: [UInt8]) throws -> Int {
        var cursor: OpaquePointer?
        try check(intoLMDB { mdb_cursor_open(handle, dbi, &cursor) })
        defer { intoLMDB { mdb_cursor_close(cursor) } }
        var removed = 0
        try prefix.withUnsafeBytes { p in
            var k = MDB_val(mv_size: p.count, mv_data: UnsafeMutableRawPointer(mutating: p.baseAddress))
            var v = MDB_val()
            var rc = intoLMDB { mdb_cursor_get(cursor, &k, &v, p.count == 0 ? MDB_FIRST : MDB_SET_RANGE) }
            while rc == 0 {
                let key = UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size)
                guard key.starts(with: p) else { return }
                try check(intoLMDB { mdb_cursor_del(cursor, 0) })
                removed += 1
                // LMDB leaves a deleted cursor on the following item; MDB_NEXT returns it.
                rc = intoLMDB { mdb_cursor_get(cursor, &k, &v, MDB_NEXT) }
            }
            if rc != MDB_NOTFOUND && rc != 0 { try check(rc) }
        }
        return removed
    }

    /// Makes the entries whose keys start with `prefix` exactly the ones `body` writes (each
    /// key starting with `prefix`, in increasing order): an entry already holding the value
    /// written is left alone, a changed one replaced, a new one put, and those not written are
    /// deleted. The result is what `deletePrefix` and a `put` of each would leave, but a page
    /// whose entries do not change is not copied: rewriting a bundle whose files mostly did not
    /// change (a `--full` build, a watcher's batch) neither rewrites its records nor leaves the
    /// old pages as free space that grows the file (docs/scanning.md, "Rewriting a bundle").
    /// Returns how many entries were put and how many were found unchanged.
    @discardableResult
    func replacePrefix(_ dbi: MDB_dbi, prefix: [UInt8],
                       _ body: (_ write: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) throws -> Void)
        throws -> (put: Int, unchanged: Int) {
        precondition(!prefix.isEmpty, "replacePrefix needs a prefix")
        var cursor: OpaquePointer?
        try check(intoLMDB { mdb_cursor_open(handle, dbi, &cursor) })
        defer { intoLMDB { mdb_cursor_close(cursor) } }
        var put = 0, unchanged = 0
        try prefix.withUnsafeBytes { p in
            var k = MDB_val(mv_size: p.count, mv_data: UnsafeMutableRawPointer(mutating: p.baseAddress))
            var v = MDB_val()
            // The entry the cursor is on, when it is still under the prefix.
            var rc = intoLMDB { mdb_cursor_get(cursor, &k, &v, MDB_SET_RANGE) }
            func existing() throws -> (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
                if rc == MDB_NOTFOUND { return nil }
                try check(rc)
                let key = UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size)
                return key.starts(with: p) ? (key, UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)) : nil
            }
            // After `mdb_cursor_del` the cursor stands before the entry that followed; MDB_NEXT
            // returns it (as in `deletePrefix`). After a put it is on the entry put.
            func deleteExisting() throws {
                try check(intoLMDB { mdb_cursor_del(cursor, 0) })
                rc = intoLMDB { mdb_cursor_get(cursor, &k, &v, MDB_NEXT) }
            }
            // The last key written: each must come after it.
            var last: [UInt8] = []
            try body { key, value in
                precondition(key.starts(with: p), "replacePrefix: a key outside the prefix")
                precondition(last.isEmpty || last.withUnsafeBytes { compareBytes($0, key) } < 0,
                             "replacePrefix: keys out of order")
                last.replaceSubrange(last.indices, with: key)
                while let old = try existing() {
                    let order = compareBytes(old.key, key)
                    if order < 0 {
                        try deleteExisting()
                        continue
                    }
                    if order == 0 && sameBytes(old.value, value) {
                        unchanged += 1
                        rc = intoLMDB { mdb_cursor_get(cursor, &k, &v, MDB_NEXT) }
                        return
                    }
                    break
                }
                var kv = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
                var vv = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
                try check(intoLMDB { mdb_cursor_put(cursor, &kv, &vv, 0) })
                put += 1
                rc = intoLMDB { mdb_cursor_get(cursor, &k, &v, MDB_NEXT) }
            }
            while try existing() != nil { try deleteExisting() }
        }
        return (put, unchanged)
    }

    /// The pages a database's B-tree holds (branch, leaf and overflow) times the page size.
    func pageBytes(_ dbi: MDB_dbi) throws -> Int {
        var st = MDB_stat()
        try check(intoLMDB { mdb_stat(handle, dbi, &st) })
        return (Int(st.ms_branch_pages) + Int(st.ms_leaf_pages) + Int(st.ms_overflow_pages)) * Int(st.ms_psize)
    }

    /// Number of entries in a database (`mdb_stat`), without reading them.
    func entryCount(_ dbi: MDB_dbi) throws -> Int {
        var st = MDB_stat()
        try check(intoLMDB { mdb_stat(handle, dbi, &st) })
        return Int(st.ms_entries)
    }

    /// Empties a database (keeps it open).
    func clear(_ dbi: MDB_dbi) throws {
        try check(intoLMDB { mdb_drop(handle, dbi, 0) })
    }
}
