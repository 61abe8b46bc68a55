/// CF's per-bundle query table (docs/search-pattern.md, "Search order") answered from the
/// index: instead of
/// reading and caching whole directories, each search step reads one record of the directory
/// it would have read. A lookup therefore costs at most one read per search step (global,
/// S0, Base, S1…Sn, plus the `forLocalization:` and version-0 repeats), whatever the size of
/// the index.
struct ResourceSearch {
    let snapshot: IndexSnapshot
    let plan: SearchPlan

    var bundle: BundleRecord { plan.record }

    /// One directory read of the table: `lproj` nil is the global step.
    struct Step {
        let lproj: String?
        /// Steps S0 and Base mark the types they provide (docs/search-pattern.md, "Type hiding").
        let firstLproj: Bool
    }

    /// global, S0, Base, S1…Sn (docs/search-pattern.md, "Search order"), from the plan.
    var steps: [Step] { plan.steps }

    // MARK: - paths of one step

    /// CF's path prefix of a step's entries: `[<l>.lproj/][sub/]` (relative to the resource dir).
    static func prefix(_ step: Step, _ sub: String?) -> String {
        var p = ""
        if let l = step.lproj { p = l + ".lproj/" }
        if let sub, !sub.isEmpty { p = PathComponents.append(p, sub); if !p.hasSuffix("/") { p += "/" } }
        return p
    }

    /// The directory step `index` reads and its path prefix; nil when the directory cannot
    /// exist, or the bundle's directory marks say it has no record (`DirectoryMarks`: reading
    /// it would find nothing). The common query (no subdirectory, the bundle's resource
    /// directory) uses the plan.
    private func locate(_ index: Int, resourceDir: String, _ sub: String?,
                        cache: inout [BytewiseString: Bool]) throws -> (DirectoryRef, String)? {
        let plain = sub == nil && resourceDir == plan.record.layout.resourceDirectory
        let dir: DirectoryRef
        if plain {
            dir = plan.plainDirectories[index]
        } else {
            guard let path = try directory(resourceDir: resourceDir, steps[index], sub, cache: &cache) else { return nil }
            dir = DirectoryRef(path)
        }
        guard plan.mayHoldDirectory(dir.hash, in: snapshot.transactionID) else { return nil }
        return (dir, plain ? plan.plainPrefixes[index] : Self.prefix(steps[index], sub))
    }

    /// The directory a step reads, as indexed (relative to the bundle root, normalised); nil
    /// when it cannot exist (a `..` through something that is not a directory).
    private func directory(resourceDir: String, _ step: Step, _ sub: String?, cache: inout [BytewiseString: Bool]) throws -> String? {
        // Two-component joins: the variadic join (its arrays) was ~9 % of `QueryProfile … paths-cases`.
        let raw = PathText.join(PathText.join(resourceDir, step.lproj.map { $0 + ".lproj" } ?? ""), sub ?? "")
        // Most paths are already normal: no empty, `.` or `..` component to take out.
        if Self.isNormal(raw) { return raw }
        var parts: [String] = []
        for c in PathText.components(raw, omittingEmpty: true) {
            if c == "." { continue }
            if c == ".." {
                // The kernel resolves `x/..` only if x is a directory: check it really is one.
                let below = parts.joined(separator: "/")
                if parts.isEmpty { return nil }
                let exists: Bool
                if let known = cache[BytewiseString(text: below)] { exists = known } else {
                    exists = try snapshot.directory(bundle: bundle.id, path: below) != nil
                    cache[BytewiseString(text: below)] = exists
                }
                if !exists { return nil }
                parts.removeLast()
            } else {
                parts.append(c)
            }
        }
        return parts.joined(separator: "/")
    }

    /// Whether `path` has no empty, `.` or `..` component (nor a leading or trailing `/`):
    /// what `directory` would make of it is then `path` itself.
    static func isNormal(_ path: String) -> Bool {
        path.withUTF8Bytes { bytes in
            let slash = UInt8(ascii: "/")
            if bytes.first == slash || bytes.last == slash { return false }
            for i in bytes.indices.dropFirst() where bytes[i] == slash && bytes[i - 1] == slash { return false }
            return !PathComponents.hasDotSegment(bytes)
        }
    }

    // MARK: - the table, one key at a time

    /// `T[key]` for a single lookup: the value the first step that has one produces.
    func first(_ key: LookupRequest.Key, resourceDir: String, sub: String?) throws -> String? {
        var cache: [BytewiseString: Bool] = [:]
        for (index, step) in steps.enumerated() {
            guard let (dir, pre) = try locate(index, resourceDir: resourceDir, sub, cache: &cache) else { continue }
            switch key {
            case .name(let name):
                if let hit = try resolve(name, in: dir, step: step, prefix: pre) { return pre + hit.pathComponent }
            case .type(let type):
                if let e = try snapshot.typeEntries(bundle: bundle.id, dir, type: type, first: true).first {
                    return pre + e.pathComponent
                }
            case .all:
                if let e = try snapshot.directory(bundle: bundle.id, dir)?.entries.first {
                    return pre + e.pathComponent
                }
            }
        }
        return nil
    }

    /// The elements of an array lookup, in result order (runs in order, byte order of names
    /// inside a run): each table value's bytes in one shared buffer, with its step (run) and
    /// readdir rank. One buffer and one list instead of a `String` per element, which were most
    /// of a `forLocalization:` array's time (docs/performance.md, "Arrays kept in one buffer").
    struct Elements {
        struct Element {
            /// The value's bytes in `bytes`: the step's prefix, the name, a `/` for a directory.
            let range: Range<Int>
            let run: Int
            /// Readdir position inside the run's directory.
            let rank: UInt32
        }

        private(set) var bytes: [UInt8] = []
        private(set) var list: [Element] = []

        mutating func append(prefix: String, name: UnsafeRawBufferPointer, isDirectory: Bool, run: Int, rank: UInt32) {
            let start = bytes.count
            bytes.append(contentsOf: prefix.utf8)
            bytes.append(contentsOf: name)
            if isDirectory { bytes.append(UInt8(ascii: "/")) }
            list.append(Element(range: start..<bytes.count, run: run, rank: rank))
        }

        /// Element `index`'s value, its bytes valid only during the call.
        func withValue<T>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
            try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[list[index].range])) }
        }

        func value(_ index: Int) -> String { withValue(index) { String(decoding: $0, as: UTF8.self) } }
    }

    /// `T[key]` for an array lookup: the runs of every step, with CF's type hiding
    /// (docs/search-pattern.md, "Type hiding"): a type
    /// found in S0 or Base is not added from later lprojs; the all-files list takes only the
    /// first localized directory that has entries. Byte order inside each run.
    func all(_ key: LookupRequest.Key, resourceDir: String, sub: String?) throws -> [String] {
        let found = try elements(key, resourceDir: resourceDir, sub: sub)
        return found.list.indices.map(found.value)
    }

    func elements(_ key: LookupRequest.Key, resourceDir: String, sub: String?) throws -> Elements {
        var out = Elements()
        try forEachArrayEntry(key, resourceDir: resourceDir, sub: sub) { run, prefix, name, flags, rank in
            out.append(prefix: prefix, name: name, isDirectory: flags.contains(.directory), run: run, rank: rank)
        }
        return out
    }

    /// The entries `elements` makes its values of, in its order, unbuilt: each one's step (run),
    /// the step's path prefix (`prefix`) and the entry, its name's bytes valid only during the
    /// call. The value `elements` keeps is the prefix, the name, and a `/` for a directory.
    func forEachArrayEntry(_ key: LookupRequest.Key, resourceDir: String, sub: String?,
                           _ body: (_ run: Int, _ prefix: String, _ name: UnsafeRawBufferPointer,
                                    _ flags: DirectoryEntry.Flags, _ rank: UInt32) throws -> Void) throws {
        var cache: [BytewiseString: Bool] = [:]
        var typeMarked = false
        var localizedAdded = false
        for (run, step) in steps.enumerated() {
            guard let (dir, pre) = try locate(run, resourceDir: resourceDir, sub, cache: &cache) else { continue }
            var found = false
            switch key {
            case .name(let name):
                if let hit = try resolve(name, in: dir, step: step, prefix: pre) {
                    try hit.name.withUTF8Bytes { try body(run, pre, UnsafeRawBufferPointer($0), hit.flags, hit.rank) }
                    return
                }
            case .type(let type):
                if step.lproj != nil && !step.firstLproj && typeMarked { continue }
                try snapshot.forEachEntry(bundle: bundle.id, dir, type: type) { name, flags, rank in
                    found = true
                    try body(run, pre, name, flags, rank)
                    return true
                }
                if step.firstLproj && found { typeMarked = true }
            case .all:
                if step.lproj != nil && localizedAdded { continue }
                try snapshot.forEachEntry(bundle: bundle.id, dir, type: nil) { name, flags, rank in
                    found = true
                    try body(run, pre, name, flags, rank)
                    return true
                }
                if step.lproj != nil && found { localizedAdded = true }
            }
        }
    }

    /// The entry CF's table holds for `name` after reading one directory: the entry of that
    /// name, replaced by platform/product variants as `_createQueryTableAtPath` does
    /// (docs/search-pattern.md, "Variants in one directory").
    private func resolve(_ name: String, in dir: DirectoryRef, step: Step, prefix pre: String) throws -> DirectoryEntry? {
        switch try snapshot.nameCandidates(bundle: bundle.id, dir, name: name) {
        case .none: return nil
        case .exact(let flags): return DirectoryEntry(name: name, flags: flags)
        case .several(let list):
            return Self.choose(among: list, for: name, step: step, prefix: pre, suffixes: plan.context.suffixes)
        }
    }

    /// Picks from a variant name's candidates (`DirectoryRecord.candidates`) what CF's table
    /// ends up holding for `name`.
    /// Candidates are visited in readdir order, as CF reads them.
    static func choose(among entries: [DirectoryEntry], for name: String, step: Step, prefix pre: String,
                       suffixes: VariantSuffixes) -> DirectoryEntry? {
        var candidates = entries
        if candidates.count > 1 { candidates.sort { $0.rank < $1.rank } }
        var current: DirectoryEntry?
        let lprojLength = step.lproj.map { ($0 + ".lproj").utf16.count } ?? 0
        for e in candidates {
            if e.name == name {
                if current == nil { current = e }
                continue
            }
            guard let kind = suffixes.variantKind(of: e.name, strippingTo: name) else { continue }
            guard let previous = current else { current = e; continue }
            let previousKind = suffixes.classify(prefix: pre, component: previous.pathComponent, lprojNameLength: lprojLength)
            if VariantSuffixes.replaces(previous: previousKind, with: kind) { current = e }
        }
        return current
    }
}

extension DirectoryEntry {
    /// How CF spells the entry in its tables: directories end with `/` (docs/search-pattern.md,
    /// "Directory listings").
    var pathComponent: String { isDirectory ? name + "/" : name }
}
