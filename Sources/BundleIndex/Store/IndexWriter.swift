/// Writes scanned bundles inside one LMDB write transaction. Whatever a build writes becomes
/// visible at once, when the transaction commits; a build killed before that leaves the
/// previous index as it was (LMDB's copy-on-write pages and its meta-page switch).
struct IndexWriter {
    let store: IndexStore
    let txn: LMDBTransaction

    // MARK: meta

    func metaU64(_ key: MetaKey) throws -> UInt64? { try store.metaU64(key, in: txn) }

    func setMeta(_ key: MetaKey, u64 value: UInt64) throws {
        try txn.put(store.meta, key: Array(key.rawValue.utf8), value: withUnsafeBytes(of: value.littleEndian) { Array($0) })
    }

    func setMeta(_ key: MetaKey, bytes: [UInt8]) throws {
        try txn.put(store.meta, key: Array(key.rawValue.utf8), value: bytes)
    }

    func roots() throws -> [String] { try store.roots(in: txn) }

    func addRoot(_ root: String) throws {
        var list = try roots()
        guard !list.contains(root) else { return }
        list.append(root)
        list.sort(by: byteOrder)
        var w = ByteWriter()
        w.strings(list)
        try setMeta(.roots, bytes: w.bytes)
    }

    func bumpGeneration() throws {
        try setMeta(.generation, u64: (try metaU64(.generation) ?? 0) + 1)
    }

    // MARK: bundles

    /// Paths of indexed bundles equal to `root` or below it.
    func bundlePaths(under root: String) throws -> [String] {
        var out: [String] = []
        let prefix = Array(root.utf8)
        try txn.scan(store.bundles, prefix: prefix) { key, _ in
            let path = String(decoding: key, as: UTF8.self)
            if path == root || path.hasPrefix(root == "/" ? "/" : root + "/") { out.append(path) }
            return true
        }
        return out
    }

    func bundleRecords(under root: String) throws -> [BundleRecord] {
        try bundlePaths(under: root).compactMap { try bundleRecord(path: $0) }
    }

    func bundleRecord(path: String) throws -> BundleRecord? {
        guard let v = try txn.get(store.bundles, key: Array(path.utf8)) else { return nil }
        return try v.withUnsafeBytes { try BundleRecord.decode($0) }
    }

    /// Removes a bundle and every record of it (one key range in `resources`).
    func removeBundle(path: String) throws {
        guard let record = try bundleRecord(path: path) else { return }
        try txn.deletePrefix(store.resources, prefix: ResourceKey.bundlePrefix(record.id))
        for id in Set(record.infoPlists.compactMap { $0.dictionary?["CFBundleIdentifier"]?.stringValue }) {
            try txn.delete(store.identifiers, key: Array(id.utf8), value: Array(path.utf8))
        }
        try txn.delete(store.bundles, key: Array(path.utf8))
    }

    /// Writes a bundle, replacing what the index held for its path.
    @discardableResult
    func addBundle(_ bundle: ScannedBundle, root: String, now: UInt64) throws -> BundleRecord {
        // A bundle written again keeps its id, so a reader holding it keeps finding its
        // resources; a new bundle gets a fresh id, whose keys sort last and can be appended.
        let previous = try bundleRecord(path: bundle.path)
        try removeBundle(path: bundle.path)
        let id: UInt64
        if let previous {
            id = previous.id
        } else {
            id = try metaU64(.nextBundleID) ?? 1
            try setMeta(.nextBundleID, u64: id + 1)
        }
        let record = BundleRecord(id: id, path: bundle.path, layout: bundle.layout, infoPlists: bundle.infoPlists,
                                  lprojs: bundle.lprojs.sorted(by: byteOrder), warnings: bundle.warnings,
                                  root: root, scannedAt: now, stamps: bundle.stamps)
        try txn.put(store.bundles, key: Array(bundle.path.utf8), value: record.encode())
        for ident in Set(bundle.infoPlists.compactMap { $0.dictionary?["CFBundleIdentifier"]?.stringValue }) where !ident.isEmpty {
            try txn.put(store.identifiers, key: Array(ident.utf8), value: Array(bundle.path.utf8))
        }
        var records = try ResourceRecords.make(bundleID: id, bundle: bundle)
        records.sort { $0.key.lexicographicallyPrecedes($1.key) }
        for r in records { try txn.put(store.resources, key: r.key, value: r.value, append: previous == nil) }
        return record
    }
}

/// Builds every `resources` record of one bundle (docs/index-format.md).
enum ResourceRecords {
    struct Record {
        let key: [UInt8]
        let value: [UInt8]
    }

    static func make(bundleID: UInt64, bundle: ScannedBundle) throws -> [Record] {
        var out: [Record] = []
        var directoryHashes: [UInt64: String] = [:]
        let stringsByDirectory = Dictionary(grouping: bundle.stringsFiles, by: \.directory)
        for dir in bundle.directories {
            let dirHash = Hashing.directory(dir.path)
            if let other = directoryHashes.updateValue(dir.path, forKey: dirHash), other != dir.path {
                throw IndexError.hashCollision("directories \(other) and \(dir.path) in \(bundle.path)")
            }
            out += try records(bundleID: bundleID, dirHash: dirHash, directory: dir,
                               strings: stringsByDirectory[dir.path] ?? [])
        }
        return out
    }

    /// Name keys of an entry: its own name and the name with the platform/product suffix of each
    /// known target removed (§5), so every profile finds a variant with the same single read.
    static func lookupNames(of name: String) -> Set<String> {
        var names: Set<String> = [name]
        guard name.utf8.contains(where: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "~") }) else { return names }
        for target in VariantSuffixes.allTargets {
            if let stripped = target.analyse(name).stripped { names.insert(stripped) }
        }
        return names
    }

    private static func records(bundleID: UInt64, dirHash: UInt64, directory: ScannedDirectory,
                                strings: [StringsFile]) throws -> [Record] {
        let check = Hashing.directoryCheck(directory.path)
        var byName: [String: [DirectoryEntry]] = [:]
        var byType: [String: [DirectoryEntry]] = [:]
        for e in directory.entries {
            for n in lookupNames(of: e.name) { byName[n, default: []].append(e) }
            for t in ResourceFileName.types(e.name) { byType[t, default: []].append(e) }
        }
        var out: [Record] = []
        var items: [UInt64: String] = [0: ""]
        func add(_ key: ResourceKey, _ label: String, _ value: [UInt8]) throws {
            if let other = items.updateValue(label, forKey: key.item), other != label {
                throw IndexError.hashCollision("\(other) and \(label) in \(directory.path)")
            }
            out.append(Record(key: key.bytes, value: value))
        }
        out.append(Record(key: ResourceKey.directory(bundle: bundleID, directory: dirHash).bytes,
                          value: DirectoryRecord(path: directory.path, modificationTime: directory.modificationTime,
                                                 entries: directory.entries).encode()))
        // Entries are in byte order already, and stay so inside each record.
        for (name, entries) in byName {
            try add(.item(bundle: bundleID, directory: dirHash, kind: .name, name), "N" + name,
                    EntryList.encodeRecord(tag: .names, directoryCheck: check, entries))
        }
        for (type, entries) in byType {
            try add(.item(bundle: bundleID, directory: dirHash, kind: .type, type), "T" + type,
                    EntryList.encodeRecord(tag: .types, directoryCheck: check, entries))
        }
        for s in strings {
            try add(.item(bundle: bundleID, directory: dirHash, kind: .strings, s.name), "S" + s.name,
                    StringsRecord.encode(directoryCheck: check, name: s.name, dictionary: s.dictionary))
        }
        return out
    }
}
