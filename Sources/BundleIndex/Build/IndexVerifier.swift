/// `bundleidx verify`: scans the roots afresh and compares, bundle by bundle, the records a
/// build would write now with the records the index holds — every key and every value — and
/// explains the differences it finds in terms of directories and entries.
public enum IndexVerifier {
    /// One way the index differs from a fresh scan.
    public struct Difference: CustomStringConvertible, Sendable, Equatable {
        /// The bundle's absolute path.
        public let bundle: String
        /// What differs, for a person to read.
        public let detail: String
        /// "bundle: detail".
        public var description: String { "\(bundle): \(detail)" }
    }

    /// Scans `roots` (default: the roots built into the index) and returns every difference
    /// between the index at `indexPath` and the disk; empty when the index is exact.
    public static func verify(indexPath: String, roots: [String]? = nil) throws -> [Difference] {
        try verify(store: IndexStore.openForReading(path: indexPath), roots: roots)
    }

    static func verify(store: IndexStore, roots: [String]?) throws -> [Difference] {
        let cwd = ProcessEnvironment.currentDirectory()
        // Roots named by the caller must be directories, as for a build: a mistyped one found
        // no bundle, and the index "matched the disk". The index's own roots may be gone: their
        // bundles are then differences.
        let given = try roots.map { try $0.map { try FileSystem.rootDirectory($0, currentDirectory: cwd) } }
        var differences: [Difference] = []
        try store.read { snap in
            // A read without the lock file runs again when two commits overtook it.
            differences = []
            // A scan short of memory may not see what is there: no verdict (`ShortageLog`).
            let shortages = ShortageLog.mark()
            #if DEBUG
            try afterSnapshot?(snap.transactionID)
            #endif
            let rootList = try given ?? snap.roots()
            var walker = TreeWalker()
            walker.declaredBundles = PathSet(try snap.declaredBundles())
            for root in rootList {
                var found: PathSet = []
                let report = try walker.walk(root: root) { bundle in
                    found.insert(bundle.path)
                    differences += try compare(bundle, snap)
                }
                found.formUnion(report.found)
                for record in try snap.bundles(under: root) where !found.contains(record.path) {
                    differences.append(Difference(bundle: record.path, detail: "indexed, but no longer a bundle on disk"))
                }
            }
            differences += try identifierDifferences(snap)
            try ShortageLog.throwIfNoted(since: shortages)
        }
        return differences
    }

    /// The identifiers database against the bundle records: every entry must name an indexed
    /// bundle that declares the identifier, and every declared identifier must have its entry.
    /// Reading all of it also reports damage there, which a query by identifier would meet.
    static func identifierDifferences(_ snap: IndexSnapshot) throws -> [Difference] {
        var out: [Difference] = []
        // By bytes, identifier and path joined by a NUL (which neither holds).
        var entries: PathSet = []
        try snap.forEachIdentifier { identifier, path in
            entries.insert(identifier + "\u{0}" + path)
            guard let record = try snap.bundle(path: path) else {
                out.append(Difference(bundle: path, detail: "the identifier \(identifier) points at a bundle that is not indexed"))
                return
            }
            if !record.identifiers.contains(BytewiseString(text: identifier)) {
                out.append(Difference(bundle: path, detail: "the identifier \(identifier) is indexed for a bundle that does not declare it"))
            }
        }
        for record in try snap.bundles(under: "/") {
            for identifier in record.identifiers.map(\.text) where !entries.contains(identifier + "\u{0}" + record.path) {
                out.append(Difference(bundle: record.path, detail: "its identifier \(identifier) is missing from the identifiers database"))
            }
        }
        return out
    }

    static func compare(_ bundle: ScannedBundle, _ snap: IndexSnapshot) throws -> [Difference] {
        func diff(_ detail: String) -> Difference { Difference(bundle: bundle.path, detail: detail) }
        guard let record = try snap.bundle(path: bundle.path) else { return [diff("on disk, but not in the index")] }
        var out: [Difference] = []
        if record.layout != bundle.layout { out.append(diff("layout \(record.layout.name) in the index, \(bundle.layout.name) on disk")) }
        if record.lprojs != bundle.lprojs { out.append(diff("lproj folders differ")) }
        if record.infoPlists != bundle.infoPlists { out.append(diff("Info.plist differs")) }
        // Marks that lack a directory would hide it from every lookup (`DirectoryMarks`).
        if !record.hasDirectoryMarks(of: bundle.directories) {
            out.append(diff("directory marks differ from the bundle's directories"))
        }
        for dir in bundle.directories {
            let shown = dir.path.isEmpty ? "(bundle root)" : dir.path
            guard let stored = try snap.directory(bundle: record.id, path: dir.path) else {
                out.append(diff("directory \(shown) is not in the index"))
                continue
            }
            let onDisk = PathSet(dir.entries.map(\.name)), indexed = PathSet(stored.entries.map(\.name))
            let added = dir.entries.map(\.name).filter { !indexed.contains($0) }.sorted(by: byteOrder)
            let removed = stored.entries.map(\.name).filter { !onDisk.contains($0) }.sorted(by: byteOrder)
            if !added.isEmpty { out.append(diff("\(shown): not indexed: \(added.prefix(5).joined(separator: ", "))\(added.count > 5 ? ", …" : "")")) }
            if !removed.isEmpty { out.append(diff("\(shown): indexed but gone: \(removed.prefix(5).joined(separator: ", "))\(removed.count > 5 ? ", …" : "")")) }
        }
        // Every record a build would write now, against every record stored for the bundle.
        if out.isEmpty, let counts = try recordDifferences(try ResourceRecords.make(bundleID: record.id, bundle: bundle),
                                                           { try snap.forEachResourceRecord(bundle: record.id, $0) }) {
            out.append(diff(counts))
        }
        let tables = try StringsRecords.make(bundleID: record.id, bundlePath: bundle.path, tables: bundle.tables)
        if let counts = try recordDifferences(tables, { try snap.forEachStringsRecord(bundle: record.id, $0) }) {
            out.append(diff("strings tables: " + counts))
        }
        return out
    }

    /// "N records differ, N stale, N missing" between `expected` and the stored records
    /// `forEachStored` visits; nil when they are the same.
    private static func recordDifferences(
        _ expected: [ResourceRecords.Record],
        _ forEachStored: ((UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws -> Void
    ) throws -> String? {
        var want: [[UInt8]: [UInt8]] = [:]
        for r in expected { want[r.key] = r.value }
        var stale = 0, changed = 0
        try forEachStored { key, value in
            if let v = want.removeValue(forKey: Array(key)) {
                if !v.elementsEqual(value) { changed += 1 }
            } else {
                stale += 1
            }
            return true
        }
        guard changed > 0 || stale > 0 || !want.isEmpty else { return nil }
        return "\(changed) records differ, \(stale) stale, \(want.count) missing"
    }
}

#if DEBUG
extension IndexVerifier {
    /// Test seam, compiled only in debug builds: called inside `verify`'s read once its snapshot
    /// is taken and before anything is compared, with the snapshot's transaction id, so a test
    /// can commit in between (the race of a lockless read; docs/reliability.md, "A shared index").
    @TaskLocal static var afterSnapshot: (@Sendable (UInt64) throws -> Void)?
}
#endif
