/// Builds every `resources` record of one bundle (docs/index-format.md) and hands them out in
/// key order, so the writer can append them (`MDB_APPEND`) without sorting or holding them.
///
/// Key order is `[directory hash][item hash]` inside the bundle: directories are visited by
/// hash, and the items of one directory (name and strings records) are sorted by hash.
/// One value buffer is reused for every record; a build allocates per entry only the names a
/// variant suffix creates.
package enum ResourceRecords {
    package struct Record {
        package let key: [UInt8]
        package let value: [UInt8]
    }

    /// Every record of the bundle, copied (the verifier compares them with what is stored).
    package static func make(bundleID: UInt64, bundle: ScannedBundle) throws -> [Record] {
        var out: [Record] = []
        try forEach(bundleID: bundleID, bundle: bundle) { key, value in
            out.append(Record(key: key.bytes, value: Array(value)))
        }
        return out
    }

    /// Calls `body` with every record of the bundle in key order. The value buffer is valid
    /// only during the call. Throws `BundleIndexError.hashCollision` when two directories, or two
    /// items of one directory, share a hash: the index would answer wrongly for one of them.
    static func forEach(bundleID: UInt64, bundle: ScannedBundle,
                        _ body: (ResourceKey, UnsafeRawBufferPointer) throws -> Void) throws {
        let stringsByDirectory = Dictionary(grouping: bundle.stringsFiles, by: \.directory)
        let directories = bundle.directories.map { (hash: Hashing.directory($0.path), directory: $0) }
            .sorted { $0.hash < $1.hash }
        var value = ByteWriter(capacity: 4096)
        var items: [Item] = []
        var previous: (hash: UInt64, path: String)?
        for (hash, dir) in directories {
            if let previous, previous.hash == hash {
                guard previous.path == dir.path else {
                    throw BundleIndexError.hashCollision("directories \(previous.path) and \(dir.path) in \(bundle.path)")
                }
                continue
            }
            previous = (hash, dir.path)
            let strings = stringsByDirectory[dir.path] ?? []
            let hasVariants = collectItems(of: dir, strings: strings, into: &items)
            value.removeAll()
            DirectoryRecord(path: dir.path, modificationTime: dir.modificationTime, entries: dir.entries,
                            hasNameRecords: hasVariants)
                .encode(into: &value)
            try value.withBytes { try body(.directory(bundle: bundleID, directory: hash), $0) }
            try writeItems(items, bundleID: bundleID, dirHash: hash, directory: dir,
                           strings: strings, value: &value, body)
        }
    }

    /// One (item, entry) pair: entry `entry` of the directory belongs in the record of
    /// `kind`/`name`. For strings records `entry` indexes the directory's strings files.
    private struct Item {
        let hash: UInt64
        let kind: ResourceKey.Kind
        let name: String
        let entry: Int
    }

    /// Collects the directory's items; returns whether an entry is a variant of another name,
    /// that is whether the directory gets name records (`DirectoryRecord.hasNameRecords`).
    private static func collectItems(of dir: ScannedDirectory, strings: [StringsFile], into items: inout [Item]) -> Bool {
        items.removeAll(keepingCapacity: true)
        var names: [String] = []
        var hasVariants = false
        for (index, e) in dir.entries.enumerated() {
            lookupNames(of: e.name, into: &names)
            if names.count > 1 { hasVariants = true }
            for n in names {
                items.append(Item(hash: ResourceKey.itemHash(kind: .name, n), kind: .name, name: n, entry: index))
            }
        }
        for (index, s) in strings.enumerated() {
            items.append(Item(hash: ResourceKey.itemHash(kind: .strings, s.name), kind: .strings, name: s.name, entry: index))
        }
        // Entries are in byte order, and stay so inside each record.
        items.sort { ($0.hash, $0.kind.rawValue, $0.entry) < ($1.hash, $1.kind.rawValue, $1.entry) }
        return hasVariants
    }

    /// Writes one record per run of equal hashes — except a name that only its own entry answers,
    /// which the directory record answers (format 13) — and a run that mixes names is a collision.
    private static func writeItems(_ items: [Item], bundleID: UInt64, dirHash: UInt64, directory: ScannedDirectory,
                                   strings: [StringsFile], value: inout ByteWriter,
                                   _ body: (ResourceKey, UnsafeRawBufferPointer) throws -> Void) throws {
        let check = Hashing.directoryCheck(directory.path)
        var start = 0
        while start < items.count {
            let first = items[start]
            var end = start + 1
            while end < items.count && items[end].hash == first.hash { end += 1 }
            let run = items[start..<end]
            if let other = run.first(where: { $0.kind != first.kind || $0.name != first.name }) {
                throw BundleIndexError.hashCollision("\(first.kind.label)\(first.name) and \(other.kind.label)\(other.name) in \(directory.path)")
            }
            start = end
            value.removeAll()
            switch first.kind {
            case .name:
                // The entry of exactly this name and no variant of it: the listing answers.
                if run.allSatisfy({ directory.entries[$0.entry].name == first.name }) { continue }
                // A name can reach one entry through several targets' suffixes: once is enough.
                var entries: [DirectoryEntry] = []
                entries.reserveCapacity(run.count)
                var last = -1
                for item in run where item.entry != last {
                    entries.append(directory.entries[item.entry])
                    last = item.entry
                }
                EntryList.encodeRecord(tag: .names, directoryCheck: check, entries, into: &value)
            case .strings:
                let file = strings[first.entry]
                StringsRecord.encode(directoryCheck: check, name: file.name, dictionary: file.dictionary, into: &value)
            }
            let key = ResourceKey(bundle: bundleID, directory: dirHash, item: first.hash)
            try value.withBytes { try body(key, $0) }
        }
    }

    /// Name keys of an entry: its own name and the name with the platform/product suffix of each
    /// known target removed (docs/search-pattern.md, "Platform and device variants"), so every
    /// profile finds a variant with the same single read.
    /// Distinct names, the entry's own first.
    static func lookupNames(of name: String, into names: inout [String]) {
        names.removeAll(keepingCapacity: true)
        names.append(name)
        guard name.utf8.contains(where: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "~") }) else { return }
        for target in VariantSuffixes.allTargets {
            if let stripped = target.analyse(name).stripped, !names.contains(stripped) { names.append(stripped) }
        }
    }
}

extension ResourceKey.Kind {
    /// How collision messages name an item of this kind (`Nlogo.png`, `Tpng`).
    var label: String { String(UnicodeScalar(rawValue)) }
}
