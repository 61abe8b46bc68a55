import CLMDBFloor

/// The physical floor: LMDB's own mdb_get on the same index file, with none of BundleIndex's
/// key hashing, record decoding or search logic. Opened exactly like the library opens it for
/// reading (MDB_RDONLY | MDB_NOTLS), so the page cache and B-tree depth are the same.
public final class RawIndex: @unchecked Sendable {
    private var env: OpaquePointer?
    private var txn: OpaquePointer?
    private var dbi = MDB_dbi()
    /// 24-byte keys of existing `resources` records, sampled at random at setup.
    public private(set) var keys: [[UInt8]] = []

    public init?(path: String, sample: Int = 4096) {
        guard mdb_env_create(&env) == 0 else { return nil }
        mdb_env_set_maxdbs(env, 8)
        guard mdb_env_open(env, path, UInt32(MDB_RDONLY | MDB_NOTLS), 0o644) == 0,
              mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn) == 0,
              mdb_dbi_open(txn, "resources", 0, &dbi) == 0 else { return nil }
        keys = sampleKeys(count: sample)
    }

    deinit {
        mdb_txn_abort(txn)
        mdb_env_close(env)
    }

    /// Reservoir sample over a full cursor walk, with a fixed-seed generator so every run reads
    /// the same keys.
    private func sampleKeys(count: Int) -> [[UInt8]] {
        var cursor: OpaquePointer?
        guard mdb_cursor_open(txn, dbi, &cursor) == 0 else { return [] }
        defer { mdb_cursor_close(cursor) }
        var rng = SplitMix64(seed: 42)
        var sample: [[UInt8]] = []
        var key = MDB_val(), value = MDB_val()
        var seen = 0
        var op = MDB_FIRST
        while mdb_cursor_get(cursor, &key, &value, op) == 0 {
            op = MDB_NEXT
            let bytes = Array(UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size))
            if sample.count < count {
                sample.append(bytes)
            } else {
                let slot = Int(rng.next() % UInt64(seen + 1))
                if slot < count { sample[slot] = bytes }
            }
            seen += 1
        }
        return sample
    }

    /// One mdb_get in the long-lived read transaction; returns the value size so the read
    /// cannot be optimised away.
    public func get(_ index: Int) -> Int {
        keys[index].withUnsafeBytes { raw in
            var key = MDB_val(mv_size: raw.count, mv_data: UnsafeMutableRawPointer(mutating: raw.baseAddress))
            var value = MDB_val()
            return mdb_get(txn, dbi, &key, &value) == 0 ? value.mv_size : -1
        }
    }

    /// A read transaction of its own around one mdb_get: what every bundleidx query pays on top
    /// of its reads (each public call runs in its own transaction).
    public func getInOwnTransaction(_ index: Int) -> Int {
        var own: OpaquePointer?
        guard mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &own) == 0 else { return -1 }
        defer { mdb_txn_abort(own) }
        return keys[index].withUnsafeBytes { raw in
            var key = MDB_val(mv_size: raw.count, mv_data: UnsafeMutableRawPointer(mutating: raw.baseAddress))
            var value = MDB_val()
            return mdb_get(own, dbi, &key, &value) == 0 ? value.mv_size : -1
        }
    }
}

/// A tiny deterministic generator (Steele, Lea, Flood: SplitMix64), so every machine samples
/// the same keys and lookups.
public struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
