/// The common single lookup — a resource name (with or without a type), no `forLocalization:`,
/// no subdirectory or a plain one — answered without building a `String`: the lookup name
/// and each step's directory are spelled in one stack buffer, hashed there into keys, and the
/// answer's path is spelled there too (docs/search-pattern.md, "Search order", "Lookup
/// arguments", "Returned paths").
///
/// It gives the same answers as `ResourceLookup` for the queries it accepts (variants are
/// chosen by the same `ResourceSearch.choose`), and hands over to it (`rootFallback`) only for
/// a miss in a bundle with the version-0 root fallback. Queries with `..`, `.` or empty
/// components, names with a `/`, and type-only lookups are not accepted at all. Steps whose
/// lproj folder the bundle does not have are not read (`SearchPlan.stepMayExist`).
enum DirectLookup {
    enum Answer<R> {
        case found(R)
        case notFound
        /// Nothing in the resource directory, but the bundle has the version-0 fallback
        /// (docs/search-pattern.md, "Version-0 root fallback"): the general lookup must look
        /// from the bundle root.
        case rootFallback
    }

    /// A hit, valid only inside the callback that receives it.
    struct Hit {
        /// The absolute path, as `path(forResource:…)` spells it.
        let path: UnsafeBufferPointer<UInt8>
        /// The same path relative to the bundle root (`ResourceHit.relativePath`).
        let relativePath: UnsafeBufferPointer<UInt8>
        let isDirectory: Bool

        fileprivate init(path: UnsafeBufferPointer<UInt8>, relativeStart: Int, flags: DirectoryEntry.Flags) {
            self.path = path
            relativePath = UnsafeBufferPointer(rebasing: path[relativeStart...])
            isDirectory = flags.contains(.directory)
        }
    }

    /// Whether the query is of the kind answered here: a plain name (not empty, `.` or `..`, no
    /// `/`), a type without `/`, no subdirectory or one made of plain names.
    static func accepts(name: String?, type: String?, subdirectory: String?) -> Bool {
        guard let name, isPlain(name, components: .one) else { return false }
        if let type, !type.isEmpty, !isPlain(type, components: .oneOrDots) { return false }
        if let subdirectory, !subdirectory.isEmpty, !isPlain(subdirectory, components: .many) { return false }
        return true
    }

    /// Walks the search steps, one name-record read per step that may exist, and calls `body`
    /// with the first hit.
    /// The query must be one `accepts` takes.
    static func find<R>(plan: SearchPlan, name: String, type: String?, subdirectory: String?,
                        in snapshot: IndexSnapshot, _ body: (Hit) throws -> R) throws -> Answer<R> {
        let type = (type?.isEmpty ?? true) ? nil : type
        let subdirectory = (subdirectory?.isEmpty ?? true) ? nil : subdirectory
        let bundlePath = plan.record.path
        let nameLength = name.utf8.count + (type.map { $0.utf8.count + 1 } ?? 0)
        // The layout below: the name twice, the bundle path, the directory and three slashes.
        let capacity = 2 * nameLength + bundlePath.utf8.count + plan.longestPlainDirectory
            + (subdirectory?.utf8.count ?? 0) + 3
        return try PathComposer.compose(capacity: capacity) { text in
            // [lookup name][bundle path]/[directory]/[lookup name]
            text.append(name)
            if let type {
                if type.utf8.first != dot { text.append(dot) }
                text.append(type)
            }
            let lookupName = 0..<text.count
            text.append(bundlePath)
            text.append(slash)
            let directoryStart = text.count
            for step in plan.steps.indices where plan.stepMayExist[step] {
                text.truncate(to: directoryStart)
                let directory: DirectoryKey
                if let subdirectory {
                    text.append(plan.plainDirectories[step].path)
                    if text.count > directoryStart { text.append(slash) }
                    text.append(subdirectory)
                    directory = text.directoryKey(directoryStart..<text.count)
                } else {
                    directory = plan.plainDirectories[step].key
                }
                let answer: Answer<R>
                switch try snapshot.nameCandidates(bundle: plan.record.id, directory, name: text.bytes(lookupName)) {
                case .none:
                    continue
                case .exact(let flags):
                    if subdirectory == nil { text.append(plan.plainDirectories[step].path) }
                    if text.count > directoryStart { text.append(slash) }
                    text.append(copyOf: lookupName)
                    answer = .found(try text.withUTF8(in: lookupName.upperBound..<text.count) { path in
                        try body(Hit(path: path, relativeStart: directoryStart - lookupName.upperBound, flags: flags))
                    })
                case .several(let entries):
                    // Variants to choose between (docs/search-pattern.md, "Variants in one
                    // directory"): the record's entries are decoded.
                    let lookup = text.withUTF8(in: lookupName) { String(decoding: $0, as: UTF8.self) }
                    let prefix = subdirectory.map { ResourceSearch.prefix(plan.steps[step], $0) } ?? plan.plainPrefixes[step]
                    guard let chosen = ResourceSearch.choose(among: entries, for: lookup, step: plan.steps[step], prefix: prefix,
                                                             suffixes: plan.context.suffixes) else { continue }
                    if subdirectory == nil { text.append(plan.plainDirectories[step].path) }
                    if text.count > directoryStart { text.append(slash) }
                    // The chosen name may be longer than the lookup name: spelled in a buffer of its own.
                    let directory = lookupName.upperBound..<text.count
                    answer = .found(try PathComposer.compose(capacity: directory.count + chosen.name.utf8.count) { path in
                        path.append(text, directory)
                        path.append(chosen.name)
                        return try path.withUTF8(in: 0..<path.count) { path in
                            try body(Hit(path: path, relativeStart: directoryStart - lookupName.upperBound, flags: chosen.flags))
                        }
                    })
                }
                return answer
            }
            return plan.hasRootFallback ? .rootFallback : .notFound
        }
    }

    private static let slash = UInt8(ascii: "/")
    private static let dot = UInt8(ascii: ".")

    private enum Components {
        /// One component, not `.` or `..`.
        case one
        /// One component; `.` and `..` allowed (a type is appended to the name, not a path).
        case oneOrDots
        /// Components separated by single slashes, none `.` or `..`.
        case many
    }

    private static func isPlain(_ text: String, components: Components) -> Bool {
        text.withUTF8Bytes { isPlain($0, components: components) }
    }

    private static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>, components: Components) -> Bool {
        var start = 0
        for end in 0...bytes.count where end == bytes.count || bytes[end] == slash {
            let length = end - start
            if length == 0 { return false }
            if end < bytes.count && components != .many { return false }
            let dots = length <= 2 && bytes[start] == dot && bytes[end - 1] == dot
            if dots && components != .oneOrDots { return false }
            start = end + 1
        }
        return true
    }
}
