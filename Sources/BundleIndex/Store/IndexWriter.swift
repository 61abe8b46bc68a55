/// Writes scanned bundles inside one LMDB write transaction. Whatever a build writes becomes
/// visible at once, when the transaction commits; a build killed before that leaves the
/// previous index as it was (LMDB's copy-on-write pages and its meta-page switch).
package struct IndexWriter {
    let store: IndexStore
    let txn: LMDBTransaction

    // MARK: meta

    func metaU64(_ key: MetaKey) throws -> UInt64? { try store.metaU64(key, in: txn) }

    package func setMeta(_ key: MetaKey, u64 value: UInt64) throws {
        try txn.put(store.meta, key: Array(key.rawValue.utf8), value: withUnsafeBytes(of: value.littleEndian) { Array($0) })
    }

    package func setMeta(_ key: MetaKey, bytes: [UInt8]) throws {
        try txn.put(store.meta, key: Array(key.rawValue.utf8), value: bytes)
    }

    func roots() throws -> [String] { try store.roots(in: txn) }

    package func addRoot(_ root: String) throws { try addPath(root, to: .roots) }

    /// Folders indexed as bundles whatever they hold (`bundleidx build --bundle DIR`).
    package func declaredBundles() throws -> [String] { try store.pathList(.declaredBundles, in: txn) }

    package func addDeclaredBundle(_ path: String) throws { try addPath(path, to: .declaredBundles) }

    /// Adds `path` to the path list at `key` (kept in byte order, each path once).
    private func addPath(_ path: String, to key: MetaKey) throws {
        var list = try store.pathList(key, in: txn)
        guard !list.contains(path) else { return }
        list.append(path)
        list.sort(by: byteOrder)
        var w = ByteWriter()
        w.strings(list)
        try setMeta(key, bytes: w.bytes)
    }

    package func bumpGeneration() throws {
        try setMeta(.generation, u64: (try metaU64(.generation) ?? 0) + 1)
    }

    // MARK: bundles

    /// Paths of indexed bundles equal to `root` or below it.
    package func bundlePaths(under root: String) throws -> [String] {
        var out: [String] = []
        let prefix = Array(root.utf8)
        try txn.scan(store.bundles, prefix: prefix) { key, _ in
            let path = String(decoding: key, as: UTF8.self)
            if PathText.isSameOrInside(path, root) { out.append(path) }
            return true
        }
        return out
    }

    package func bundleRecords(under root: String) throws -> [BundleRecord] {
        try bundlePaths(under: root).compactMap { try bundleRecord(path: $0) }
    }

    package func bundleRecord(path: String) throws -> BundleRecord? {
        guard let v = try txn.get(store.bundles, key: Array(path.utf8)) else { return nil }
        return try v.withUnsafeBytes { try BundleRecord.decode($0, path: path) }
    }

    /// Every stamp a restarted watcher compares with the disk for `record`: its own (the
    /// folders outside its indexed tree, the parsed files), each of its directory records' path
    /// and modification time, and each strings table's. Table records hold no paths: the tables
    /// are the `.strings`/`.stringsdict` entries of the directory records. A table without a
    /// record gets modification time 0, which no file has: the bundle is scanned again.
    package func diskStamps(of record: BundleRecord) throws -> [FileStamp] {
        // Read through the snapshot's functions, in this write transaction (the writer keeps it
        // and the store alive while it is used).
        let snapshot = IndexSnapshot(store: store, txn: txn)
        let directories = try snapshot.directoryRecords(bundle: record.id)
        var stamps = record.allStamps(with: directories)
        for directory in directories {
            for e in directory.entries where StringsTable.isTable(e.name) && !e.isDirectory {
                let path = PathText.join(directory.path, e.name)
                let mtime = try snapshot.stringsTableModificationTime(bundle: record.id, StringsKey.Table(path))
                stamps.append(FileStamp(path: path, modificationTime: mtime ?? 0))
            }
        }
        return stamps
    }

    /// Removes a bundle and every record of it (one key range in `resources`).
    package func removeBundle(path: String) throws {
        guard let record = try bundleRecord(path: path) else { return }
        try txn.deletePrefix(store.resources, prefix: ResourceKey.bundlePrefix(record.id))
        try txn.deletePrefix(store.strings, prefix: ResourceKey.bundlePrefix(record.id))
        for id in record.identifiers {
            try txn.delete(store.identifiers, key: Array(id.utf8), value: Array(path.utf8))
        }
        try txn.delete(store.bundles, key: Array(path.utf8))
    }

    /// Writes a scanned bundle unless a folder of it could not be read and the index holds a
    /// record of it: a folder that cannot be read is not a folder that was emptied, so the
    /// records of its last complete scan stay (docs/scanning.md, "Bad input"). False when kept.
    package func addBundleUnlessPartial(_ bundle: ScannedBundle, root: String, now: UInt64) throws -> Bool {
        if !bundle.unreadable.isEmpty, try bundleRecord(path: bundle.path) != nil { return false }
        try addBundle(bundle, root: root, now: now)
        return true
    }

    /// Whether an indexed bundle that a walk did not find lies at or below a directory the walk
    /// could not list: then it is not known to be gone, and its records stay.
    package static func isHidden(_ path: String, byUnreadable unreadable: [String]) -> Bool {
        unreadable.contains { PathText.isSameOrInside(path, $0) }
    }

    /// Writes a bundle, replacing what the index held for its path. A bundle written again keeps
    /// its id, so a reader holding it keeps finding its resources, and only its records that
    /// changed are written (`LMDBTransaction.replacePrefix`); a new bundle gets a fresh id, whose
    /// keys sort last and are appended.
    @discardableResult
    package func addBundle(_ bundle: ScannedBundle, root: String, now: UInt64) throws -> BundleRecord {
        let previous = try bundleRecord(path: bundle.path)
        let id: UInt64
        if let previous {
            id = previous.id
        } else {
            id = try metaU64(.nextBundleID) ?? 1
            // Keys hold 32 bits of the id and ids are never reused: after 2^32 new bundles an
            // index has to be made afresh.
            guard id <= ResourceKey.maximumBundleID else {
                throw BundleIndexError.corrupt(path: store.path, reason: "all 2^32 bundle ids are used; delete the index and build it again")
            }
            try setMeta(.nextBundleID, u64: id + 1)
        }
        let record = BundleRecord(id: id, path: bundle.path, layout: bundle.layout, infoPlists: bundle.infoPlists,
                                  lprojs: bundle.lprojs, warnings: bundle.warnings,
                                  root: root, scannedAt: now, stamps: bundle.fileStamps,
                                  directoryMarks: DirectoryMarks(of: bundle.directories))
        try txn.putAppendingWhenLast(store.bundles, key: Array(bundle.path.utf8), value: record.encode())
        let identifiers = BundleRecord.identifiers(of: bundle.infoPlists)
        let before = previous?.identifiers ?? []
        for gone in before.subtracting(identifiers) {
            try txn.delete(store.identifiers, key: Array(gone.utf8), value: Array(bundle.path.utf8))
        }
        for ident in identifiers.subtracting(before) {
            try txn.put(store.identifiers, key: Array(ident.utf8), value: Array(bundle.path.utf8))
        }
        guard previous != nil else {
            try ResourceRecords.forEach(bundleID: id, bundle: bundle) { key, value in
                try key.withBytes { try txn.put(store.resources, key: $0, value: value, append: true) }
            }
            try StringsRecords.forEach(bundleID: id, bundlePath: bundle.path, tables: bundle.tables) { key, value in
                try key.withBytes { try txn.put(store.strings, key: $0, value: value, append: true) }
            }
            return record
        }
        let prefix = ResourceKey.bundlePrefix(id)
        try txn.replacePrefix(store.resources, prefix: prefix) { write in
            try ResourceRecords.forEach(bundleID: id, bundle: bundle) { key, value in try key.withBytes { try write($0, value) } }
        }
        try txn.replacePrefix(store.strings, prefix: prefix) { write in
            try StringsRecords.forEach(bundleID: id, bundlePath: bundle.path, tables: bundle.tables) { key, value in
                try key.withBytes { try write($0, value) }
            }
        }
        return record
    }
}
