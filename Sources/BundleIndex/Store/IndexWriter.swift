/// Writes scanned bundles inside one LMDB write transaction. Whatever a build writes becomes
/// visible at once, when the transaction commits; a build killed before that leaves the
/// previous index as it was (LMDB's copy-on-write pages and its meta-page switch).
package struct IndexWriter {
    let store: IndexStore
    let txn: LMDBTransaction
    /// The bundle records of a first build, written together (`HeldBundleRecords`); nil once
    /// the index holds bundles.
    private let held: HeldBundleRecords?

    init(store: IndexStore, txn: LMDBTransaction) throws {
        self.store = store
        self.txn = txn
        held = try txn.entryCount(store.bundles) == 0 ? HeldBundleRecords() : nil
    }

    /// Writes the bundle records held back (`HeldBundleRecords`): before the transaction
    /// commits, and before anything reads the bundles database but a record by its path.
    package func writeHeldRecords() throws {
        guard let held, !held.isEmpty else { return }
        for (path, value) in held.takeAll() { try txn.putAppendingWhenLast(store.bundles, key: Array(path.utf8), value: value) }
    }

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
        guard !list.contains(where: { sameBytes($0, path) }) else { return }
        list.append(path)
        list.sort(by: byteOrder)
        var w = ByteWriter()
        w.strings(list)
        try setMeta(key, bytes: w.bytes)
    }

    /// The generation goes up by one at each commit. One past Int64.max was never written by
    /// bundleidx (2^63 commits): the index is damaged there, and it starts again at 1, where
    /// adding one trapped and no build could repair the index. A reader compares generations
    /// for equality only, so the restart still tells it that the index changed.
    package func bumpGeneration() throws {
        let now = try metaU64(.generation) ?? 0
        try setMeta(.generation, u64: now < UInt64(Int64.max) ? now + 1 : 1)
    }

    // MARK: bundles

    /// Paths of indexed bundles equal to `root` or below it.
    package func bundlePaths(under root: String) throws -> [String] {
        try writeHeldRecords()
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
        guard let v = try held?.value(path) ?? txn.get(store.bundles, key: Array(path.utf8)) else { return nil }
        return try v.withUnsafeBytes { try BundleRecord.decode($0, path: path) }
    }

    /// Every stamp a restarted watcher compares with the disk for `record`: its own (the
    /// folders outside its indexed tree, the parsed files, where links not followed lead, the
    /// folders it could not list), each of its directory records' path, change time and inode,
    /// and each strings table's. Table records hold no paths: the tables are the
    /// `.strings`/`.stringsdict` entries of the directory records. A table without a record
    /// gets change time 0, which no file has: the bundle is scanned again. Also the paths of
    /// the directory records, where the bundle's links out are (`BundleScanner.outsideTargets`).
    package func diskStamps(of record: BundleRecord) throws -> (stamps: [FileStamp], directories: [String]) {
        // Read through the snapshot's functions, in this write transaction (the writer keeps it
        // and the store alive while it is used).
        let snapshot = IndexSnapshot(store: store, txn: txn)
        let directories = try snapshot.directoryRecords(bundle: record.id)
        var stamps = record.allStamps(with: directories)
        for directory in directories {
            for e in directory.entries where StringsTable.isTable(e.name) && !e.isDirectory {
                let path = PathText.join(directory.path, e.name)
                let changed = try snapshot.stringsTableChangeTime(bundle: record.id, StringsKey.Table(path))
                stamps.append(FileStamp(path: path, changeTime: changed ?? 0, inode: 0))
            }
        }
        return (stamps, directories.map(\.path))
    }

    /// Removes a bundle and every record of it (one key range in `resources`), keeping its id
    /// for its path (`RetiredIDs`; at most `retiredLimit` paths).
    package func removeBundle(path: String, retiredLimit: Int = retiredLimit) throws {
        try writeHeldRecords()
        guard let record = try bundleRecord(path: path) else { return }
        try txn.deletePrefix(store.resources, prefix: ResourceKey.bundlePrefix(record.id))
        try txn.deletePrefix(store.strings, prefix: ResourceKey.bundlePrefix(record.id))
        for id in record.identifiers {
            try txn.delete(store.identifiers, key: Array(id.text.utf8), value: Array(path.utf8))
        }
        try txn.delete(store.bundles, key: Array(path.utf8))
        let sequence = try metaU64(.retiredSequence) ?? 0
        try setMeta(.retiredSequence, u64: sequence &+ 1)
        try RetiredIDs(txn: txn, dbi: store.retired)
            .retire(id: record.id, path: path, identity: RetiredIDs.identity(of: record.identifiers),
                    sequence: sequence, limit: retiredLimit)
    }

    /// The most ids kept for paths bundles left (two entries each, about 150 bytes in the file).
    package static let retiredLimit = 65_536

    /// The id a bundle at `path` with `identifiers` had before it left the index, taken out of
    /// `retired` (`RetiredIDs`); nil when none is kept, when the bundle kept there had other
    /// identifiers (another bundle put at its path: a handle opened on the first must not answer
    /// the second's files), or when what is kept cannot be that id (a damaged value: not 20
    /// bytes, 0, never given, or an id records still use). A fresh id is always safe.
    private func takeRetiredID(path: String, identifiers: Set<BytewiseString>) throws -> UInt64? {
        guard let kept = try RetiredIDs(txn: txn, dbi: store.retired).take(path),
              kept.identity == RetiredIDs.identity(of: identifiers) else { return nil }
        let id = kept.id
        guard id > 0, let next = try metaU64(.nextBundleID), id < next else { return nil }
        let prefix = ResourceKey.bundlePrefix(id)
        for dbi in [store.resources, store.strings] {
            var used = false
            try txn.scan(dbi, prefix: prefix) { _, _ in used = true; return false }
            if used { return nil }
        }
        return id
    }

    /// Writes a scanned bundle unless a folder of it could not be read and the index holds a
    /// record of it: a folder that cannot be read is not a folder that was emptied, so the
    /// records of its last complete scan stay (docs/scanning.md, "Bad input"). False when kept.
    package func addBundleUnlessPartial(_ bundle: ScannedBundle, root: String, scanBegan: UInt64) throws -> Bool {
        if !bundle.unreadable.isEmpty, try bundleRecord(path: bundle.path) != nil { return false }
        try addBundle(bundle, root: root, scanBegan: scanBegan)
        return true
    }

    /// Whether an indexed bundle that a walk did not find lies at or below a directory the walk
    /// could not list: then it is not known to be gone, and its records stay.
    package static func isHidden(_ path: String, byUnreadable unreadable: [String]) -> Bool {
        unreadable.contains { PathText.isSameOrInside(path, $0) }
    }

    /// Writes a bundle, replacing what the index held for its path; `scanBegan` is when the
    /// scan that found it began (`wallClockNanoseconds`), before it read anything. A bundle written again keeps
    /// its id, so a reader holding it keeps finding its resources, and only its records that
    /// changed are written (`LMDBTransaction.replacePrefix`). A bundle where one was before it
    /// left the index (deleted and put back, moved away and back), with the same identifiers,
    /// gets that one's id again (`takeRetiredID`); any other gets a fresh id, whose keys sort
    /// last and are appended.
    @discardableResult
    package func addBundle(_ bundle: ScannedBundle, root: String, scanBegan: UInt64) throws -> BundleRecord {
        let previous = try bundleRecord(path: bundle.path)
        let identifiers = BundleRecord.identifiers(of: bundle.infoPlists)
        let id: UInt64
        // Records of an id given back go in place: its keys do not sort last.
        var appends = previous == nil
        if let previous {
            id = previous.id
        } else if let retired = try takeRetiredID(path: bundle.path, identifiers: identifiers) {
            id = retired
            appends = false
        } else {
            id = try metaU64(.nextBundleID) ?? 1
            // Keys hold 32 bits of the id and an id never goes to another path: after 2^32 new bundles an
            // index has to be made afresh.
            guard id <= ResourceKey.maximumBundleID else {
                throw BundleIndexError.corrupt(path: store.path, reason: "all 2^32 bundle ids are used; delete the index and build it again")
            }
            try setMeta(.nextBundleID, u64: id + 1)
        }
        let record = BundleRecord(id: id, path: bundle.path, layout: bundle.layout, infoPlists: bundle.infoPlists,
                                  lprojs: bundle.lprojs, warnings: bundle.warnings,
                                  root: root, scannedAt: scanBegan / 1_000_000, stamps: bundle.fileStamps,
                                  directoryMarks: DirectoryMarks(of: bundle.directories))
        if let held, held.isHolding {
            if held.hold(path: bundle.path, value: record.encode()) { try writeHeldRecords() }
        } else {
            try txn.putAppendingWhenLast(store.bundles, key: Array(bundle.path.utf8), value: record.encode())
        }
        let before = previous?.identifiers ?? []
        for gone in before.subtracting(identifiers) {
            try txn.delete(store.identifiers, key: Array(gone.text.utf8), value: Array(bundle.path.utf8))
        }
        for ident in identifiers.subtracting(before) {
            try txn.put(store.identifiers, key: Array(ident.text.utf8), value: Array(bundle.path.utf8))
        }
        guard !appends else {
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

/// The bundle records of a build into an index that holds none yet, held back and written
/// together in key order. Written as each bundle was scanned, they lay among its resource and
/// strings records all over the file, so that the first open of each bundle in a process took a
/// page fault of its own; written together, they fill a run of pages, and the kernel maps the
/// neighbours of a page it faults in (0.62 → 0.15 faults per first open on the real corpus
/// ×19; docs/performance.md, "The bundles database laid out together"). At most
/// `byteLimit` bytes are held: a tree with more bundle records (gen-tree's 1M has 28 MiB)
/// gets that much written together, the rest as it comes; holding them all would add their
/// size to a build's peak memory, and at 1M their pages are too many for runs to spare many
/// faults (0.29 → 0.21 per open with every record written in runs of 8 MiB).
final class HeldBundleRecords {
    /// Bundle paths (the keys) in the order they came, the walk's (nearly byte order, so that
    /// sorting them costs little), their records, and where each path is.
    private var paths: [String] = []
    private var values: [[UInt8]] = []
    /// By bytes: two paths Swift's `==` takes for one ("é" in one scalar and in two) are two
    /// bundles (`BytewiseString`).
    private var position: [BytewiseString: Int] = [:]
    private var bytes = 0
    static let byteLimit = 4 << 20

    var isEmpty: Bool { paths.isEmpty }

    /// False once the limit was reached: records are then written as they come.
    private(set) var isHolding = true

    /// Holds the record of the bundle at `path` (replacing one held for it); true when the
    /// limit is reached and the records should be written now.
    func hold(path: String, value: [UInt8]) -> Bool {
        bytes += path.utf8.count + value.count
        if bytes >= Self.byteLimit { isHolding = false }
        let key = BytewiseString(text: path)
        if let at = position[key] {
            values[at] = value
        } else {
            position[key] = paths.count
            paths.append(path)
            values.append(value)
        }
        return bytes >= Self.byteLimit
    }

    func value(_ path: String) -> [UInt8]? { position[BytewiseString(text: path)].map { values[$0] } }

    /// Every record held, by path in byte order (the key order), and none held any more.
    func takeAll() -> [(path: String, value: [UInt8])] {
        let order = paths.indices.sorted { byteOrder(paths[$0], paths[$1]) }
        let all = order.map { (path: paths[$0], value: values[$0]) }
        (paths, values, position, bytes) = ([], [], [:], 0)
        return all
    }
}
