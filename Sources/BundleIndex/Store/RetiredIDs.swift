/// The `retired` database: the ids of bundles that left the index, kept for their paths so that
/// a bundle coming back there gets its id again (docs/index-format.md, "retired"). Every key of a
/// bundle's records starts with its id, so whatever a reader opened before the bundle left —
/// an `IndexedBundle`, a drop-in, a C handle — finds its files again.
///
/// Two kinds of entry:
/// - by path (the key starts with `/`, as every bundle path does): `[id u32][sequence u64]
///   [identity u64]`, little-endian — the id, the retirement's number (`meta`'s
///   `retiredSequence`, +1 per retirement), and a hash of the bundle's identifiers
///   (`identity(of:)`);
/// - by age: `[0][sequence u64 BE]` → the path. They sort before every path and oldest first,
///   so the path forgotten past `limit` is the one retired longest ago.
struct RetiredIDs {
    let txn: LMDBTransaction
    let dbi: IndexStore.MDB_dbi_t

    /// What a path entry holds.
    struct Kept {
        let id: UInt64
        let sequence: UInt64
        let identity: UInt64

        /// A path entry's value; nil when it is not 20 bytes (damage).
        init?(_ value: [UInt8]) {
            guard value.count == 20 else { return nil }
            (id, sequence, identity) = value.withUnsafeBytes { raw in
                (UInt64(raw.loadUnaligned(as: UInt32.self).littleEndian),
                 raw.loadUnaligned(fromByteOffset: 4, as: UInt64.self).littleEndian,
                 raw.loadUnaligned(fromByteOffset: 12, as: UInt64.self).littleEndian)
            }
        }
    }

    /// Keeps `id` for `path` as retirement number `sequence`; past `limit` paths, forgets the
    /// oldest.
    func retire(id: UInt64, path: String, identity: UInt64, sequence: UInt64, limit: Int) throws {
        if let old = try kept(path) { _ = try txn.delete(dbi, key: Self.ageKey(old.sequence)) }
        var value = ByteWriter(capacity: 20)
        value.u32(UInt32(truncatingIfNeeded: id))
        value.u64(sequence)
        value.u64(identity)
        try txn.put(dbi, key: Array(path.utf8), value: value.bytes)
        try txn.put(dbi, key: Self.ageKey(sequence), value: Array(path.utf8))
        while try txn.entryCount(dbi) > 2 * limit {
            var oldest: (key: [UInt8], path: String)?
            try txn.scan(dbi, prefix: [0]) { key, value in
                oldest = (Array(key), String(decoding: value, as: UTF8.self))
                return false
            }
            guard let oldest else { break }
            _ = try txn.delete(dbi, key: oldest.key)
            // Only the path entry of this retirement (a damaged age entry may name another's).
            if let entry = try kept(oldest.path), Self.ageKey(entry.sequence) == oldest.key {
                _ = try txn.delete(dbi, key: Array(oldest.path.utf8))
            }
        }
    }

    /// Takes out what is kept for `path` (both of its entries), if anything is. Every bundle
    /// new to the index asks: one read, and nothing written when there is no entry.
    func take(_ path: String) throws -> Kept? {
        let key = Array(path.utf8)
        guard let value = try txn.get(dbi, key: key) else { return nil }
        // A value that is not 20 bytes (damage) goes too; its age entry, if any, goes when it
        // is the oldest.
        _ = try txn.delete(dbi, key: key)
        guard let found = Kept(value) else { return nil }
        _ = try txn.delete(dbi, key: Self.ageKey(found.sequence))
        return found
    }

    /// The path entry of `path`; nil when there is none or it is not 20 bytes.
    private func kept(_ path: String) throws -> Kept? {
        try txn.get(dbi, key: Array(path.utf8)).flatMap(Kept.init)
    }

    static func ageKey(_ sequence: UInt64) -> [UInt8] {
        var key: [UInt8] = [0]
        withUnsafeBytes(of: sequence.bigEndian) { key += $0 }
        return key
    }

    /// A bundle's identifiers (each `CFBundleIdentifier` it has, in byte order) as one hash: an
    /// id goes back only to a bundle with the same ones, so a handle opened on one bundle never
    /// answers another put at its path later.
    static func identity(of identifiers: Set<BytewiseString>) -> UInt64 {
        var encoded = ByteWriter()
        encoded.strings(identifiers.map(\.text).sorted(by: byteOrder))
        return encoded.withBytes(Hashing.retiredIdentity)
    }
}
