/// Builds every `resources` record of one bundle (docs/index-format.md) and hands them out in
/// key order, so the writer can append them (`MDB_APPEND`) without sorting or holding them.
///
/// Key order is `[directory hash][item hash]` inside the bundle: directories are visited by
/// hash, and a directory's record (the 12-byte key) comes before its strings records, sorted by hash.
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
    /// strings files of one directory, share a hash: the index would answer wrongly for one of them.
    static func forEach(bundleID: UInt64, bundle: ScannedBundle,
                        _ body: (ResourceKey, UnsafeRawBufferPointer) throws -> Void) throws {
        let stringsByDirectory = Dictionary(grouping: bundle.stringsFiles, by: \.directory)
        let directories = bundle.directories.map { (hash: Hashing.directory($0.path), directory: $0) }
            .sorted { $0.hash < $1.hash }
        var value = ByteWriter(capacity: 4096)
        var previous: (hash: UInt64, path: String)?
        for (hash, dir) in directories {
            if let previous, previous.hash == hash {
                guard previous.path == dir.path else {
                    throw BundleIndexError.hashCollision("directories \(previous.path) and \(dir.path) in \(bundle.path)")
                }
                continue
            }
            previous = (hash, dir.path)
            value.removeAll()
            DirectoryRecord(path: dir.path, changeTime: dir.changeTime, inode: dir.inode, entries: dir.entries,
                            variantNames: variantNames(of: dir), unchangedWalk: dir.unchangedWalk)
                .encode(into: &value)
            try value.withBytes { try body(.directory(bundle: bundleID, directory: hash), $0) }
            try writeStrings(stringsByDirectory[dir.path] ?? [], bundleID: bundleID, dirHash: hash, directory: dir,
                             value: &value, body)
        }
    }

    /// The names of `dir` that variants answer (format 13: kept in its directory record): for
    /// each, in byte order, the entries a lookup of it may return — every entry that is a
    /// variant of it for some target, and the entry of exactly that name if there is one — by
    /// their indices in the listing. Names compare as bytes, as CF compares them
    /// (docs/search-pattern.md, L-byte-names).
    static func variantNames(of dir: ScannedDirectory) -> [DirectoryRecord.VariantName] {
        var byName: [[UInt8]: [Int]] = [:]
        var names: [String] = []
        for (index, e) in dir.entries.enumerated() {
            lookupNames(of: e.name, into: &names)
            for stripped in names.dropFirst() { byName[Array(stripped.utf8), default: []].append(index) }
        }
        guard !byName.isEmpty else { return [] }
        var indexByName: [[UInt8]: Int] = [:]
        for (index, e) in dir.entries.enumerated() { indexByName[Array(e.name.utf8)] = index }
        return byName.map { name, variants in
            DirectoryRecord.VariantName(name: String(decoding: name, as: UTF8.self),
                                        candidates: (variants + (indexByName[name].map { [$0] } ?? [])).sorted())
        }.sorted { byteOrder($0.name, $1.name) }
    }

    /// Writes the strings records of one directory in key order; two files whose hashes are
    /// equal are a collision.
    private static func writeStrings(_ strings: [StringsFile], bundleID: UInt64, dirHash: UInt64, directory: ScannedDirectory,
                                     value: inout ByteWriter,
                                     _ body: (ResourceKey, UnsafeRawBufferPointer) throws -> Void) throws {
        guard !strings.isEmpty else { return }
        let check = Hashing.directoryCheck(directory.path)
        let files = strings.map { (hash: ResourceKey.itemHash(kind: .strings, $0.name), file: $0) }.sorted { $0.hash < $1.hash }
        for (i, item) in files.enumerated() {
            if i > 0, files[i - 1].hash == item.hash {
                throw BundleIndexError.hashCollision("S\(files[i - 1].file.name) and S\(item.file.name) in \(directory.path)")
            }
            value.removeAll()
            StringsRecord.encode(directoryCheck: check, name: item.file.name, dictionary: item.file.dictionary, into: &value)
            try value.withBytes { try body(ResourceKey(bundle: bundleID, directory: dirHash, item: item.hash), $0) }
        }
    }

    /// Lookup names of an entry: its own name and the name with the platform/product suffix of
    /// each known target removed (docs/search-pattern.md, "Platform and device variants"), so
    /// every profile finds a variant among the directory record's variant names.
    /// Distinct names, the entry's own first.
    static func lookupNames(of name: String, into names: inout [String]) {
        names.removeAll(keepingCapacity: true)
        names.append(name)
        // Over the name's buffer: stepping through `name.utf8` was a third of this function.
        guard name.withUTF8Bytes({ $0.contains { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "~") } }) else { return }
        for target in VariantSuffixes.allTargets {
            if let stripped = target.analyse(name).stripped, !names.contains(stripped) { names.append(stripped) }
        }
    }
}
