/// The common single lookup — a resource name (with or without a type), no `forLocalization:`,
/// no subdirectory or a plain one — answered without building a `String`: the lookup name
/// and each step's directory are spelled in one stack buffer, hashed there into keys, and the
/// answer's path is spelled there too (docs/search-pattern.md, "Search order", "Lookup
/// arguments", "Returned paths").
///
/// It gives the same answers as `ResourceLookup` for the queries it accepts (variants are
/// chosen by the same `ResourceSearch.choose`), the version-0 root fallback included. Queries
/// with `..`, `.` or empty components, names with a `/`, and type-only lookups are not accepted
/// at all. Steps whose lproj folder the bundle does not have are not read (`SearchBase.mayExist`).
enum DirectLookup {
    enum Answer<R> {
        case found(R)
        case notFound
        /// A `forLocalization:` lookup this shortcut cannot settle (variants to choose between):
        /// the general lookup answers it from the start.
        case general
    }

    /// Which directories a lookup reads.
    enum Route {
        /// The search list: global, then the language folders (the 3-argument API).
        case searchList
        /// `forLocalization:`: global, then `<localization>.lproj` only.
        case localization(String?)
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
    /// `/`, no drive CF would drop: `LookupRequest.hasDrive`), a type without `/`, no
    /// subdirectory or one made of plain names.
    static func accepts(name: String?, type: String?, subdirectory: String?) -> Bool {
        guard let name, isPlain(name, components: .one), !LookupRequest.hasDrive(name) else { return false }
        if let type, !type.isEmpty, !isPlain(type, components: .oneOrDots) { return false }
        if let subdirectory, !subdirectory.isEmpty, !isPlain(subdirectory, components: .many) { return false }
        return true
    }

    /// Whether a `forLocalization:` lookup can take the shortcut: `accepts`, a localization that
    /// is nil, empty or one plain name, a lookup name without `.lproj` in it, and a bundle whose
    /// lproj names have no dot (see `find` for why).
    static func accepts(name: String?, type: String?, subdirectory: String?, localization: String?, plan: SearchPlan) -> Bool {
        guard accepts(name: name, type: type, subdirectory: subdirectory), !plan.lprojNameHasDot else { return false }
        if let localization, !localization.isEmpty, !isPlain(localization, components: .one) { return false }
        return !mentionsLproj(name) && !mentionsLproj(type)
    }

    /// Whether `text` contains `.lproj` (compared byte by byte: Foundation's `contains` would
    /// cost more than the lookup).
    private static func mentionsLproj(_ text: String?) -> Bool {
        guard let text else { return false }
        return text.withUTF8Bytes { bytes in lprojSuffix.withUnsafeBufferPointer { firstOccurrence(of: $0, in: bytes) != nil } }
    }

    /// Walks the search steps, one directory-record read per step that may exist (variant
    /// names included: the record lists them), and calls `body` with the first hit.
    /// The query must be one `accepts` takes.
    ///
    /// With `.localization(L)`, CF first searches the whole list and keeps a global hit, or a
    /// hit whose path starts with `L.`; otherwise it searches again inside `L.lproj`
    /// (docs/search-pattern.md, "forLocalization is literal"); `findLocalized` walks both
    /// searches. Variants (chosen by rules the general lookup keeps) and lproj names with a dot
    /// (`en.x.lproj` passes CF's `en.` test) go to the general lookup (`.general`).
    static func find<R>(plan: SearchPlan, name: String, type: String?, subdirectory: String?, route: Route = .searchList,
                        in source: inout DirectorySource, _ body: (Hit) throws -> R) throws -> Answer<R> {
        let type = (type?.isEmpty ?? true) ? nil : type
        let subdirectory = (subdirectory?.isEmpty ?? true) ? nil : subdirectory
        let bundlePath = plan.record.path
        let nameLength = name.utf8.count + (type.map { $0.utf8.count + 1 } ?? 0)
        // The layout below: the name twice, the bundle path, the directory and three slashes.
        var capacity = 2 * nameLength + bundlePath.utf8.count + plan.longestPlainDirectory
            + (subdirectory?.utf8.count ?? 0) + 3
        if case .localization(let localization?) = route {
            // The second search's "/<localization>.lproj" after a step's directory, and a "/".
            capacity += localization.utf8.count + 8
        }
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
            func search(_ base: SearchBase, _ subdirectory: String?) throws -> Answer<R> {
                switch route {
                case .searchList:
                    return try findInSearchList(plan: plan, base: base, subdirectory: subdirectory, lookupName: lookupName,
                                                directoryStart: directoryStart, text: &text, in: &source, body)
                case .localization(let localization):
                    return try findLocalized(plan: plan, base: base, localization: localization, subdirectory: subdirectory,
                                             lookupName: lookupName, directoryStart: directoryStart,
                                             text: &text, in: &source, body)
                }
            }
            // The resource directory's steps as a later commit has them, if it is one.
            let later = try source.laterResourceBase(of: plan)
            func searchResources(_ subdirectory: String?) throws -> Answer<R> {
                if let later { return try search(later, subdirectory) }
                return try search(plan.resourceBase, subdirectory)
            }
            let answer = try searchResources(subdirectory)
            guard case .notFound = answer, plan.hasRootFallback else { return answer }
            // The version-0 fallback (docs/search-pattern.md, "Version-0 root fallback"): the
            // same search again, `inDirectory: "Resources[/x]"` mapped back into the resource
            // directory, any other from the bundle root.
            let own = plan.record.layout == .resources ? "Resources" : "Contents/Resources"
            if subdirectory == own { return try searchResources(nil) }
            if let subdirectory, let below = PathText.below(own, in: subdirectory) {
                return try searchResources(below)
            }
            return try search(try source.rootBase(of: plan, subdirectory: subdirectory)!, subdirectory)
        }
    }

    /// The search-list route of `find` from `base`: one directory-record read per step that may
    /// exist (`IndexSnapshot.nameCandidates`); the first step holding the name (or a variant of
    /// it) answers.
    private static func findInSearchList<R>(plan: SearchPlan, base: SearchBase, subdirectory: String?,
                                            lookupName: Range<Int>, directoryStart: Int, text: inout PathComposer,
                                            in source: inout DirectorySource, _ body: (Hit) throws -> R) throws -> Answer<R> {
        for step in plan.steps.indices where base.mayExist[step] {
            text.truncate(to: directoryStart)
            let directory = stepDirectory(step, base: base, subdirectory: subdirectory, directoryStart: directoryStart, &text)
            switch try candidates(step, base: base, directory, lookupName: lookupName, directoryStart: directoryStart,
                                  subdirectory: subdirectory, plan: plan, text: text, in: &source) {
            case .none:
                continue
            case .exact(let flags):
                return .found(try exactHit(lookupName: lookupName, directoryStart: directoryStart, flags: flags, &text, body))
            case .several(let entries):
                // Variants to choose between (docs/search-pattern.md, "Variants in one
                // directory"): the record's entries are decoded.
                let lookup = text.withUTF8(in: lookupName) { String(decoding: $0, as: UTF8.self) }
                let prefix = subdirectory.map { ResourceSearch.prefix(plan.steps[step], $0) } ?? plan.plainPrefixes[step]
                guard let chosen = ResourceSearch.choose(among: entries, for: lookup, step: plan.steps[step], prefix: prefix,
                                                         suffixes: plan.context.suffixes) else { continue }
                if text.count > directoryStart { text.append(slash) }
                // The chosen name may be longer than the lookup name: spelled in a buffer of its own.
                let directory = lookupName.upperBound..<text.count
                return .found(try PathComposer.compose(capacity: directory.count + chosen.name.utf8.count) { path in
                    path.append(text, directory)
                    path.append(chosen.name)
                    return try path.withUTF8(in: 0..<path.count) { path in
                        try body(Hit(path: path, relativeStart: directoryStart - lookupName.upperBound, flags: chosen.flags))
                    }
                })
            }
        }
        return .notFound
    }

    /// The `.localization` route of `find`, CF's two searches (docs/search-pattern.md,
    /// "forLocalization is literal"): the search list as `find` walks it, whose first hit is kept
    /// when it is global (by CF's substring test) or in `<localization>.lproj`; otherwise the
    /// same steps again inside `<step>/<localization>.lproj[/subdirectory]`, whose first hit is
    /// the answer. Variants anywhere go to the general lookup.
    ///
    /// After a global miss, an exact name in `<localization>.lproj` is what both searches
    /// answer (the first finds it there first, or finds a localized hit elsewhere and the second
    /// starts there), so that folder is read next — unless a hit in another language folder could
    /// count as global by the substring test, which only some subdirectories make possible.
    private static func findLocalized<R>(plan: SearchPlan, base: SearchBase, localization: String?, subdirectory: String?,
                                         lookupName: Range<Int>, directoryStart: Int, text: inout PathComposer,
                                         in source: inout DirectorySource, _ body: (Hit) throws -> R) throws -> Answer<R> {
        let localization = (localization?.isEmpty ?? true) ? nil : localization
        let global = 0
        /// `<step's directory>/<localization>.lproj[/subdirectory]`, spelled after `directoryStart`.
        func languageDirectory(_ step: Int, _ localization: String, _ text: inout PathComposer) -> DirectoryKey {
            text.truncate(to: directoryStart)
            text.append(base.directories[step].path)
            if text.count > directoryStart { text.append(slash) }
            text.append(localization)
            text.append(".lproj")
            if let subdirectory {
                text.append(slash)
                text.append(subdirectory)
            }
            return text.directoryKey(directoryStart..<text.count)
        }
        func hit(_ flags: DirectoryEntry.Flags, _ text: inout PathComposer) throws -> Answer<R> {
            .found(try exactHit(lookupName: lookupName, directoryStart: directoryStart, flags: flags, &text, body))
        }
        // Whether `<localization>.lproj` (the global step's) was read and lacks the name.
        var languageFolderLacksName = false
        // Decided only after a global miss: a global hit never needs it (hashing the
        // localization into the lproj names was ~40 ns of a ~750 ns warm global hit at 1M).
        func languageFolderFirst() -> Bool {
            localization.map { l in base.lprojNames?.contains { sameBytes($0, l) } ?? false } ?? false
                && plan.steps.allSatisfy { step in step.lproj.map { isLocalizedValue(lproj: $0, subdirectory: subdirectory) } ?? true }
        }
        searchList: for step in plan.steps.indices where base.mayExist[step] {
            if languageFolderLacksName && Self.same(plan.steps[step].lproj, localization) { continue }
            text.truncate(to: directoryStart)
            let directory = stepDirectory(step, base: base, subdirectory: subdirectory, directoryStart: directoryStart, &text)
            switch try candidates(step, base: base, directory, lookupName: lookupName, directoryStart: directoryStart,
                                  subdirectory: subdirectory, plan: plan, text: text, in: &source) {
            case .none:
                guard step == global, let localization, languageFolderFirst() else { continue }
                let directory = languageDirectory(global, localization, &text)
                // `<localization>.lproj` is among the bundle's lproj folders (`languageFolderFirst`).
                switch try source.candidates(directory, plan: plan, path: text.bytes(directoryStart..<text.count),
                                             name: text.bytes(lookupName), marked: subdirectory != nil) {
                case .none: languageFolderLacksName = true
                case .several: return .general
                case .exact(let flags): return try hit(flags, &text)
                }
            case .several:
                return .general
            case .exact(let flags):
                if let lproj = plan.steps[step].lproj, isLocalizedValue(lproj: lproj, subdirectory: subdirectory),
                   !Self.same(lproj, localization) {
                    break searchList
                }
                return try hit(flags, &text)
            }
        }
        guard let localization else { return .notFound }
        for step in plan.steps.indices where base.mayExist[step] {
            if plan.steps[step].lproj == nil {
                // The global step's `<localization>.lproj`: read already, or absent.
                if languageFolderLacksName { continue }
                if let known = base.lprojNames, !known.contains(where: { sameBytes($0, localization) }) { continue }
            }
            let directory = languageDirectory(step, localization, &text)
            // Settled only for the global step's `<localization>.lproj`, by the lproj names.
            let settled = subdirectory == nil && plan.steps[step].lproj == nil && base.lprojNames != nil
            switch try source.candidates(directory, plan: plan, path: text.bytes(directoryStart..<text.count),
                                         name: text.bytes(lookupName), marked: !settled) {
            case .none: continue
            case .several: return .general
            case .exact(let flags): return try hit(flags, &text)
            }
        }
        return .notFound
    }

    /// What step `step`'s directory, spelled in `text` after `directoryStart`, holds for the
    /// lookup name, or `.none` unread when the base's root listing shows the step's folder cannot
    /// hold it (`SearchBase.mayHold`).
    @inline(__always)
    private static func candidates(_ step: Int, base: SearchBase, _ directory: DirectoryKey, lookupName: Range<Int>,
                                   directoryStart: Int, subdirectory: String?, plan: SearchPlan,
                                   text: borrowing PathComposer, in source: inout DirectorySource) throws -> NameCandidates {
        let name = text.bytes(lookupName)
        if plan.steps[step].lproj == nil, !base.mayHold(name: name, subdirectory: subdirectory) { return .none }
        // Without a subdirectory, `base.mayExist` has settled whether the step's folder exists.
        return try source.candidates(directory, plan: plan, path: text.bytes(directoryStart..<text.count), name: name,
                                     marked: subdirectory != nil)
    }

    /// CF's substring test (docs/search-pattern.md, L-lproj-substring) on the table value of a
    /// hit in `<lproj>.lproj`, `<lproj>.lproj/[<subdirectory>/]<name>`, for the names and
    /// subdirectories `accepts` takes: without a subdirectory the value is localized (`.lproj`
    /// comes first after the dot-free lproj name, with the name after it); with one, unless
    /// the value starts with the subdirectory's text.
    private static func isLocalizedValue(lproj: String, subdirectory: String?) -> Bool {
        guard let subdirectory else { return true }
        // Whether `<lproj>.lproj/<subdirectory>` starts with the subdirectory, compared part by
        // part without building the text (a `String` built here cost ~800 instructions a lookup).
        return lproj.withUTF8Bytes { lproj in
            subdirectory.withUTF8Bytes { sub in
                lprojSlash.withUnsafeBufferPointer { lprojSlash in
                    var matched = 0
                    // Whether `part`, next in the text, agrees with the subdirectory's bytes there.
                    func agrees(_ part: UnsafeBufferPointer<UInt8>) -> Bool {
                        let length = min(part.count, sub.count - matched)
                        defer { matched += length }
                        return sameBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: part[..<length])),
                                         UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: sub[matched..<(matched + length)])))
                    }
                    return !(agrees(lproj) && agrees(lprojSlash) && agrees(sub))
                }
            }
        }
    }

    /// The directory step `step` reads, spelled after `directoryStart` (its path is compared with
    /// the directory record's), and its key: the base's for no subdirectory, else
    /// `<step's directory>/<subdirectory>` hashed there.
    @inline(__always)
    private static func stepDirectory(_ step: Int, base: SearchBase, subdirectory: String?, directoryStart: Int,
                                      _ text: inout PathComposer) -> DirectoryKey {
        text.append(base.directories[step].path)
        guard let subdirectory else { return base.directories[step].key }
        if text.count > directoryStart { text.append(slash) }
        text.append(subdirectory)
        return text.directoryKey(directoryStart..<text.count)
    }

    /// An exact name found in the directory spelled after `directoryStart`: completes the path
    /// (`/`, then the lookup name) and hands it to `body`.
    @inline(__always)
    private static func exactHit<R>(lookupName: Range<Int>, directoryStart: Int, flags: DirectoryEntry.Flags,
                                    _ text: inout PathComposer, _ body: (Hit) throws -> R) throws -> R {
        if text.count > directoryStart { text.append(slash) }
        text.append(copyOf: lookupName)
        return try text.withUTF8(in: lookupName.upperBound..<text.count) { path in
            try body(Hit(path: path, relativeStart: directoryStart - lookupName.upperBound, flags: flags))
        }
    }

    private static let slash = UInt8(ascii: "/")
    /// `.lproj`, for byte searches (also CF's substring test in `ResourceLookup`).
    static let lprojSuffix: [UInt8] = Array(".lproj".utf8)
    private static let lprojSlash: [UInt8] = Array(".lproj/".utf8)
    private static let dot = UInt8(ascii: ".")

    private enum Components {
        /// One component, not `.` or `..`.
        case one
        /// One component; `.` and `..` allowed (a type is appended to the name, not a path).
        case oneOrDots
        /// Components separated by single slashes, none `.` or `..`.
        case many
    }

    /// Whether two optional names are the same bytes (both nil counts as the same), as CF
    /// compares an lproj name with a `forLocalization:` name.
    private static func same(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case let (a?, b?): return sameBytes(a, b)
        default: return false
        }
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
