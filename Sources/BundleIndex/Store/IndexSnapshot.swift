import Glibc

/// A directory of a bundle with its key hash computed once (its record's stored path detects a
/// collision).
struct DirectoryRef: Sendable {
    let path: String
    let key: DirectoryKey

    var hash: UInt64 { key.hash }

    init(_ path: String) {
        self.path = path
        key = DirectoryKey(hash: Hashing.directory(path))
    }
}

/// What a directory holds for one lookup name (`DirectoryRecord.candidates`).
enum NameCandidates {
    case none
    /// The common case — one entry, named exactly like the lookup, and no variant of it.
    case exact(DirectoryEntry.Flags)
    /// A name variants answer: the entries its lookup may return, the entry of that name if any.
    case several([DirectoryEntry])
}

/// A consistent, read-only view of the index (one LMDB read transaction). Query code reads
/// through it and never sees LMDB types. `reads` counts the point reads done so far.
package struct IndexSnapshot {
    // A snapshot exists only inside `IndexStore.read`, which keeps both objects alive for the
    // whole call (or inside an `IndexWriter` call, whose writer holds both); not counting
    // references to them saves two retain/release pairs per query.
    unowned(unsafe) let store: IndexStore
    unowned(unsafe) let txn: LMDBTransaction

    var reads: Int { txn.reads }

    /// False: lookups in this snapshot read every directory from the index, neither using nor
    /// keeping the bundle's `DirectoryTables` (what the read counts of `readsForLookup` measure).
    var usesDirectoryTables = true

    /// The id of the commit this snapshot shows.
    package var transactionID: UInt64 { txn.id }

    package func bundle(path: String) throws -> BundleRecord? {
        var key = path
        return try key.withUTF8 { k in
            try txn.get(store.bundles, key: UnsafeRawBufferPointer(k)).map { try BundleRecord.decode($0, path: path) }
        }
    }

    /// `bundle(path:)` decoded for queries: only the Info.plist files `wanted` names.
    func bundle(path: String, forQueriesReading wanted: (String) -> Bool) throws -> BundleRecord? {
        var key = path
        return try key.withUTF8 { k in
            try txn.get(store.bundles, key: UnsafeRawBufferPointer(k)).map {
                try BundleRecord.decode($0, path: path, forQueriesReading: wanted)
            }
        }
    }

    /// `bundle(path:)` with its stamps and without its Info.plist files (the incremental build).
    package func bundleStamps(path: String) throws -> BundleRecord? {
        var key = path
        return try key.withUTF8 { k in
            try txn.get(store.bundles, key: UnsafeRawBufferPointer(k)).map { try BundleRecord.decode($0, path: path, forStampsOnly: ()) }
        }
    }

    /// An address inside the index's map: where the first meta record's value lies
    /// (`IndexReader.warmUp` looks up the mapping holding it).
    func addressInMap() throws -> UnsafeRawPointer? {
        var found: UnsafeRawPointer?
        try txn.scan(store.meta, prefix: []) { _, value in
            found = value.baseAddress
            return false
        }
        return found
    }

    /// Bundle paths whose Info.plist declares `identifier`, in byte order.
    func bundlePaths(identifier: String) throws -> [String] {
        var out: [String] = []
        try txn.scan(store.identifiers, prefix: Array(identifier.utf8)) { key, value in
            guard key.elementsEqual(identifier.utf8) else { return false }
            out.append(String(decoding: value, as: UTF8.self))
            return true
        }
        return out
    }

    /// Every entry of the identifiers database, identifier and bundle path, in key order (for
    /// `verify`, which reads every database a query can read).
    package func forEachIdentifier(_ body: (_ identifier: String, _ path: String) throws -> Void) throws {
        try txn.scan(store.identifiers, prefix: []) { key, value in
            try body(String(decoding: key, as: UTF8.self), String(decoding: value, as: UTF8.self))
            return true
        }
    }

    /// Every bundle record whose path is `root` or below it (all of them for "/").
    package func bundles(under root: String) throws -> [BundleRecord] {
        try bundles(under: root, infoPlistsWanted: nil)
    }

    /// `bundles(under:)` decoded for queries: only the Info.plist files `wanted` names.
    func bundles(under root: String, forQueriesReading wanted: (String) -> Bool) throws -> [BundleRecord] {
        try withoutActuallyEscaping(wanted) { try bundles(under: root, infoPlistsWanted: $0) }
    }

    private func bundles(under root: String, infoPlistsWanted wanted: ((String) -> Bool)?) throws -> [BundleRecord] {
        var out: [BundleRecord] = []
        let prefix = root == "/" ? [] : Array(root.utf8)
        try txn.scan(store.bundles, prefix: prefix) { key, value in
            let path = String(decoding: key, as: UTF8.self)
            if PathText.isSameOrInside(path, root) {
                out.append(try wanted.map { try BundleRecord.decode(value, path: path, forQueriesReading: $0) }
                           ?? BundleRecord.decode(value, path: path))
            }
            return true
        }
        return out
    }

    /// The listing of a directory (relative to the bundle root), or nil when it is not a
    /// directory of the bundle.
    package func directory(bundle: UInt64, path: String) throws -> DirectoryRecord? {
        try directory(bundle: bundle, DirectoryRef(path))
    }

    func directory(bundle: UInt64, _ dir: DirectoryRef) throws -> DirectoryRecord? {
        let key = ResourceKey.directory(bundle: bundle, directory: dir.hash)
        return try key.withBytes { k in
            guard let v = try txn.get(store.resources, key: k) else { return nil }
            let record = try DirectoryRecord.decode(v)
            return record.path == dir.path ? record : nil
        }
    }

    /// Every directory record of bundle `id`, in key order (the incremental build reuses the
    /// listings of a bundle that did not change).
    package func directoryRecords(bundle id: UInt64) throws -> [DirectoryRecord] {
        var out: [DirectoryRecord] = []
        try txn.scan(store.resources, prefix: ResourceKey.bundlePrefix(id)) { key, value in
            if ResourceKey.isDirectoryRecord(key) { out.append(try DirectoryRecord.decode(value)) }
            return true
        }
        return out
    }

    /// The directory records of bundle `id`, in key order, read in place (valid as long as
    /// this snapshot): the incremental build's stamp checks decode no listing they need not.
    package func storedDirectories(bundle id: UInt64) throws -> [StoredDirectory] {
        var out: [StoredDirectory] = []
        try txn.scan(store.resources, prefix: ResourceKey.bundlePrefix(id)) { key, value in
            if ResourceKey.isDirectoryRecord(key) { out.append(try StoredDirectory(value)) }
            return true
        }
        return out
    }

    /// Entries of `dir` that a lookup of `name` may return: the entry called `name` and the
    /// variants whose stripped name is `name` (for any target; callers filter).
    func nameCandidates(bundle: UInt64, _ dir: DirectoryRef, name: String) throws -> NameCandidates {
        try dir.path.withUTF8Bytes { path in
            try name.withUTF8Bytes {
                try nameCandidates(bundle: bundle, dir.key, path: UnsafeRawBufferPointer(path), name: UnsafeRawBufferPointer($0))
            }
        }
    }

    /// The same, for a directory and a name spelled in bytes (the allocation-free query path):
    /// `path` is the directory's path, which `key` was made from. One read, the directory's
    /// record, its stored path compared with `path` (format 13: `DirectoryRecord.candidates`).
    func nameCandidates(bundle: UInt64, _ key: DirectoryKey, path: UnsafeRawBufferPointer,
                        name: UnsafeRawBufferPointer) throws -> NameCandidates {
        try ResourceKey.directory(bundle: bundle, directory: key.hash).withBytes { k in
            guard let record = try txn.get(store.resources, key: k) else { return .none }
            return try DirectoryRecord.candidates(record, path: path, name: name) ?? .none
        }
    }

    /// The entries of directory `key` (spelled `path`) as a `NameTable` (`DirectoryTables`), and
    /// what it holds for `name`, in one read: an empty table when the directory has no record (it
    /// holds nothing); no table when its record is another path's, lists variant names, or holds
    /// more than `largest` entries (`candidates` is then read from the record as
    /// `nameCandidates` reads it).
    func nameTable(bundle: UInt64, _ key: DirectoryKey, path: UnsafeRawBufferPointer, name: UnsafeRawBufferPointer,
                   largest: Int) throws -> (table: NameTable?, candidates: NameCandidates) {
        try ResourceKey.directory(bundle: bundle, directory: key.hash).withBytes { k in
            guard let record = try txn.get(store.resources, key: k) else { return (NameTable(path: path) { _ in }, .none) }
            guard let (variants, listing) = try DirectoryRecord.open(record, path: path) else { return (nil, .none) }
            var r = listing
            var cursor = try FrontCodedEntries.Cursor(&r)
            guard variants == nil, cursor.count <= largest, let table = try NameTable(path: path, entries: { body in
                try cursor.forEach { entry, flags, _ in
                    try body(entry, flags)
                    return true
                }
            }) else {
                return (nil, try DirectoryRecord.candidates(record, path: path, name: name) ?? .none)
            }
            return (table, table.candidates(of: name))
        }
    }

    /// Entries of `dir` whose start or end type is `type`, in byte order (`first`: only the
    /// first of them). One read: the directory record, its path compared with the directory's
    /// and its listing filtered by name, no `String` built for an entry of another type (format
    /// 13 keeps no type records).
    func typeEntries(bundle: UInt64, _ dir: DirectoryRef, type: String, first: Bool = false) throws -> [DirectoryEntry] {
        var out: [DirectoryEntry] = []
        try forEachEntry(bundle: bundle, dir, type: type) { name, flags, rank in
            out.append(DirectoryEntry(name: String(decoding: name, as: UTF8.self), flags: flags, rank: rank))
            return !first
        }
        return out
    }

    /// The entries of `dir` in byte order (with `type`: only those whose start or end type it
    /// is), each name's bytes valid only during its call to `body`, which returns false to stop.
    /// One read, like `typeEntries`; nothing when `dir` is not a directory of the bundle.
    func forEachEntry(bundle: UInt64, _ dir: DirectoryRef, type: String?,
                      _ body: (UnsafeRawBufferPointer, DirectoryEntry.Flags, UInt32) throws -> Bool) throws {
        try ResourceKey.directory(bundle: bundle, directory: dir.hash).withBytes { k in
            guard let record = try txn.get(store.resources, key: k),
                  var (_, r) = try dir.path.withUTF8Bytes({ try DirectoryRecord.open(record, path: UnsafeRawBufferPointer($0)) })
            else { return }
            var cursor = try FrontCodedEntries.Cursor(&r)
            guard let type else {
                _ = try cursor.forEach(body)
                return
            }
            try type.withUTF8Bytes { type in
                _ = try cursor.forEach { name, flags, rank in
                    try !ResourceFileName.hasType(name, UnsafeRawBufferPointer(type)) || body(name, flags, rank)
                }
            }
        }
    }

    /// The parsed dictionary of an `InfoPlist*.strings` file (nil when it did not parse).
    func strings(bundle: UInt64, directory: String, name: String) throws -> [String: PropertyListValue]?? {
        let key = ResourceKey.item(bundle: bundle, directory: Hashing.directory(directory), kind: .strings, name)
        return try key.withBytes { k in
            guard let v = try txn.get(store.resources, key: k) else { return .none }
            return try StringsRecord.decode(v, directoryCheck: Hashing.directoryCheck(directory), name: name)
        }
    }

    /// What the strings table at `table` holds for `key` (`stringsFirstLookup`, one read).
    func stringsEntry(bundle: UInt64, _ table: StringsKey.Table, key: UnsafeRawBufferPointer) throws -> StringsRecords.TableAnswer {
        let (hash, check) = table.entry(key)
        return try stringsFirstLookup(bundle: bundle, table, hash: hash, check: check).answer
    }

    /// A table's first lookup, with one cursor: set at `[bundle][table][hash]`, it lands on
    /// the chunk whose range holds the hash when the table is chunked (one read; the entry is
    /// looked up in the mapped record, nothing is copied); otherwise the record before is the
    /// table's own record, if the table is in the index — nothing sorts between the two — and
    /// when that record holds the entries, they come back with the answer, to be kept.
    func stringsFirstLookup(bundle: UInt64, _ table: StringsKey.Table, hash: UInt64,
                            check: UInt32) throws -> (answer: StringsRecords.TableAnswer, entries: StringsEntries?) {
        try StringsKey.chunk(bundle: bundle, table, covering: hash).withBytes { k in
            let prefix = StringsKey.tablePrefixSize
            return try txn.seek(store.strings, atOrAfter: k) { found, previous in
                if let (key, value) = found, key.count == k.count, memcmp(key.baseAddress!, k.baseAddress!, prefix) == 0 {
                    return (try StringsRecords.lookup(chunk: value, hash: hash, check: check), nil)
                }
                guard let (key, value) = try previous(), key.count == prefix,
                      memcmp(key.baseAddress!, k.baseAddress!, prefix) == 0 else { return (.notIndexed, nil) }
                switch try StringsRecords.head(value, table) {
                case .notIndexed: return (.notIndexed, nil)
                case .entries(let entries):
                    return (entries.value(hash: hash, check: check).map(StringsRecords.TableAnswer.found) ?? .missing, entries)
                // A chunked table's record, yet no chunk where one has to be.
                case .chunked: throw IndexFormatError(what: "strings table without the chunk of an entry hash")
                }
            }
        }
    }

    /// Every chunk of a chunked table, in hash order: one cursor run over `[bundle][table]`.
    func stringsChunks(bundle: UInt64, _ table: StringsKey.Table) throws -> [StringsEntries] {
        var out: [StringsEntries] = []
        try txn.scan(store.strings, prefix: StringsKey.table(bundle: bundle, table).bytes) { key, value in
            if key.count > StringsKey.tablePrefixSize {
                out.append(try StringsRecords.chunk(value, upper: key.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }))
            }
            return true
        }
        guard out.last?.upper == .max else { throw IndexFormatError(what: "strings table without its last chunk") }
        return out
    }

    /// The change time a strings table record holds; nil when there is none.
    package func stringsTableChangeTime(bundle: UInt64, _ table: StringsKey.Table) throws -> UInt64? {
        try StringsKey.table(bundle: bundle, table).withBytes { k in
            guard let v = try txn.get(store.strings, key: k) else { return nil }
            return try StringsRecords.changeTime(v, table)
        }
    }

    /// Every strings record of bundle `id`, in key order (for `verify`).
    package func forEachStringsRecord(bundle id: UInt64,
                              _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool) throws {
        try txn.scan(store.strings, prefix: ResourceKey.bundlePrefix(id), body)
    }

    package func metaU64(_ key: MetaKey) throws -> UInt64? { try store.metaU64(key, in: txn) }

    func metaString(_ key: MetaKey) throws -> String? {
        try txn.get(store.meta, key: Array(key.rawValue.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    package func roots() throws -> [String] { try store.roots(in: txn) }

    /// Folders indexed as bundles whatever they hold (`bundleidx build --bundle DIR`).
    package func declaredBundles() throws -> [String] { try store.pathList(.declaredBundles, in: txn) }

    /// Every resource record of bundle `id`, key and value, in key order (for `verify`, which
    /// compares them with the records a build would write now). `body` returns false to stop.
    package func forEachResourceRecord(bundle id: UInt64,
                               _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Bool) throws {
        try txn.scan(store.resources, prefix: ResourceKey.bundlePrefix(id), body)
    }

    /// Number of entries in the resources database (for `stats`).
    func resourceRecordCount() throws -> Int {
        try txn.entryCount(store.resources)
    }

    /// What the index's bytes hold (for `stats --detail`): per database its pages, and per kind
    /// of record (the tag its value starts with) the entries and their key and value bytes.
    /// Reads every record.
    func storageUse() throws -> [(database: String, kind: String, entries: Int, payloadBytes: Int, pageBytes: Int?)] {
        var out: [(database: String, kind: String, entries: Int, payloadBytes: Int, pageBytes: Int?)] = []
        let databases: [(String, IndexStore.MDB_dbi_t)] = [("meta", store.meta), ("bundles", store.bundles),
                                               ("identifiers", store.identifiers), ("resources", store.resources),
                                               ("strings", store.strings), ("retired", store.retired)]
        for (name, dbi) in databases {
            var kinds: [String: (entries: Int, bytes: Int)] = [:]
            try txn.scan(dbi, prefix: []) { key, value in
                let kind = Self.recordKind(database: name, key: key, value: value)
                kinds[kind, default: (0, 0)].entries += 1
                kinds[kind, default: (0, 0)].bytes += key.count + value.count
                return true
            }
            out.append((name, "all", kinds.values.reduce(0) { $0 + $1.entries }, kinds.values.reduce(0) { $0 + $1.bytes },
                        try txn.pageBytes(dbi)))
            for (kind, use) in kinds.sorted(by: { $0.value.bytes > $1.value.bytes }) where kinds.count > 1 {
                out.append((name, kind, use.entries, use.bytes, nil))
            }
        }
        return out
    }

    /// What a record of `database` is, by its value's first byte (by its key's in `retired`; docs/index-format.md).
    private static func recordKind(database: String, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> String {
        if database == "strings" { return StringsRecords.kind(of: value) }
        // Two entries per path a bundle left (`RetiredIDs`).
        if database == "retired" { return key.first == 0 ? "retirements by age" : "ids kept by path" }
        guard database == "resources", let tag = value.first else { return "records" }
        switch tag {
        case RecordTag.directory.rawValue: return "directory listings"
        case RecordTag.strings.rawValue: return "localized Info tables (InfoPlist.strings)"
        default: return "other"
        }
    }

    /// Number of entries in the strings database (for `stats`).
    func stringsRecordCount() throws -> Int {
        try txn.entryCount(store.strings)
    }
}
