/// The `meta` database: the names of its values, and the readers of the ones the index's
/// own code reads back (the writers are `IndexWriter`'s).
package enum MetaKey: String {
    case format, version, nextBundleID, generation, builtAt, buildSeconds, roots
    /// Folders indexed as bundles whatever they hold (`bundleidx build --bundle DIR`).
    case declaredBundles
    /// The number the next entry of the `retired` database gets (`RetiredIDs`).
    case retiredSequence
    /// Written by `bundleidx watch`: "catching up", "live", "degraded", "stopped".
    case watchState, watchedDirectories, unwatchedDirectories, watcherPID
}

extension IndexStore {
    /// A u64 value of the `meta` database, read in `txn` (snapshot or writer).
    func metaU64(_ key: MetaKey, in txn: LMDBTransaction) throws -> UInt64? {
        guard let v = try txn.get(meta, key: Array(key.rawValue.utf8)), v.count == 8 else { return nil }
        return v.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }.littleEndian
    }

    /// The roots built into the index, read in `txn`.
    func roots(in txn: LMDBTransaction) throws -> [String] { try pathList(.roots, in: txn) }

    /// A list of paths in the `meta` database (`roots`, `declaredBundles`), read in `txn`.
    func pathList(_ key: MetaKey, in txn: LMDBTransaction) throws -> [String] {
        guard let v = try txn.get(meta, key: Array(key.rawValue.utf8)) else { return [] }
        return try v.withUnsafeBytes { b in var r = ByteReader(b); return try r.strings() }
    }
}
