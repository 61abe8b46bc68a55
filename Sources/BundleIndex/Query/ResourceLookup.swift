/// A found resource, as Foundation reports it: `IndexedBundle.resource(named:ofType:inDirectory:)`
/// answers with one where `Bundle.url(forResource:…)` answers with a URL.
public struct ResourceHit: Equatable, Sendable {
    /// The bundle's absolute path (`IndexedBundle.bundlePath`).
    public let bundlePath: String
    /// Relative to the bundle root, spelled like Foundation's `path(...)` (no trailing `/`);
    /// "." for the bundle folder itself.
    public let relativePath: String
    /// Foundation's `url(...).hasDirectoryPath`: true for real directories (not for links to them).
    public let isDirectory: Bool

    /// The absolute path, as `IndexedBundle.path(forResource:…)` answers it.
    public var path: String { relativePath == "." ? bundlePath : bundlePath + "/" + relativePath }
}

/// `_CFBundleCopyFindResources` over the index: argument normalisation, the `forLocalization:`
/// filter, path spelling and the version-0 root fallback (docs/search-pattern.md, "Lookup
/// arguments", "forLocalization is literal", "Returned paths", "Version-0 root fallback").
struct ResourceLookup {
    let search: ResourceSearch

    /// The `forLocalization:` argument: absent (the 3-argument API) or given (maybe nil).
    enum Localization: Equatable {
        case unspecified
        case given(String?)
    }

    func single(name: String?, type: String?, subdirectory: String?, localization: Localization) throws -> ResourceHit? {
        guard let request = LookupRequest(name: name, type: type, subdirectory: subdirectory) else { return nil }
        return try withFallback(request) { resourceDir, sub in
            try findSingle(request.key, resourceDir: resourceDir, sub: sub, localization: localization)
                .map { hit(resourceDir: resourceDir, $0, verbatim: isNameKey(request.key)) }
                .map { [$0] } ?? []
        }.first
    }

    func array(type: String?, subdirectory: String?, localization: Localization) throws -> [ResourceHit] {
        guard let request = LookupRequest(name: nil, type: type, subdirectory: subdirectory) else { return [] }
        return try withFallback(request) { resourceDir, sub in
            try findArray(request.key, resourceDir: resourceDir, sub: sub, localization: localization)
                .map { hit(resourceDir: resourceDir, $0, verbatim: false) }
        }
    }

    /// `array(...).map(\.path)`, each path built once (`direct`).
    func absolutePaths(type: String?, subdirectory: String?, localization: Localization) throws -> [String] {
        try direct(type: type, subdirectory: subdirectory, localization: localization,
                   general: { $0.map(\.path) }) { resourceDir, prefix, name, _ in
            spell(bundle: search.bundle.path, resourceDir: resourceDir, prefix: prefix, name: name)
        }
    }

    /// `array(...)`, each hit's relative path built once (`direct`).
    func directHits(type: String?, subdirectory: String?, localization: Localization) throws -> [ResourceHit] {
        let bundlePath = search.bundle.path
        return try direct(type: type, subdirectory: subdirectory, localization: localization,
                          general: { $0 }) { resourceDir, prefix, name, isDirectory in
            ResourceHit(bundlePath: bundlePath, relativePath: spell(bundle: nil, resourceDir: resourceDir, prefix: prefix, name: name),
                        isDirectory: isDirectory)
        }
    }

    /// `array(...)` with each element made by `make` from its parts — the resource directory,
    /// the step's prefix, the entry's name (bytes valid during the call) and its directory flag —
    /// instead of a value, a relative path, a dot-segment pass and a `ResourceHit` per element,
    /// which were most of a `paths(forResourcesOfType:)` answer's time. Taken when nothing needs
    /// normalising: no `.` or `..` segment in the subdirectory, nor in the
    /// `<localization>.lproj/...` one that `forLocalization:` may search (the version-0
    /// fallback's subdirectories are parts of the first); otherwise `general` is given
    /// `array`'s answer.
    private func direct<T>(type: String?, subdirectory: String?, localization: Localization,
                           general: ([ResourceHit]) -> [T],
                           make: (_ resourceDir: String, _ prefix: String, _ name: UnsafeRawBufferPointer, _ isDirectory: Bool) -> T)
        throws -> [T] {
        guard let request = LookupRequest(name: nil, type: type, subdirectory: subdirectory) else { return [] }
        let l: String?
        if case .given(let given) = localization { l = (given?.isEmpty ?? true) ? nil : given } else { l = nil }
        if request.subdirectory.map(PathComponents.hasDotSegment) == true
            || l.map({ PathComponents.hasDotSegment(localizedSubdirectory($0, request.subdirectory)) }) == true {
            return general(try array(type: type, subdirectory: subdirectory, localization: localization))
        }
        return try withFallback(request) { resourceDir, sub in
            var out: [T] = []
            guard case .given = localization else {
                try search.forEachArrayEntry(request.key, resourceDir: resourceDir, sub: sub) { _, prefix, name, flags, _ in
                    out.append(make(resourceDir, prefix, name, flags.contains(.directory)))
                }
                return out
            }
            let found = try search.elements(request.key, resourceDir: resourceDir, sub: sub)
            let (kept, lprojFound) = keptForLocalization(found, l, sub: sub)
            // A kept value is the prefix and the name, with a `/` after a directory's.
            out.reserveCapacity(kept.count)
            for index in kept {
                out.append(found.withValue(index) { bytes in
                    let isDirectory = bytes.last == UInt8(ascii: "/")
                    return make(resourceDir, "", UnsafeRawBufferPointer(isDirectory ? UnsafeBufferPointer(rebasing: bytes.dropLast()) : bytes),
                                isDirectory)
                })
            }
            if let l, !lprojFound {
                try search.forEachArrayEntry(request.key, resourceDir: resourceDir, sub: localizedSubdirectory(l, sub)) { _, prefix, name, flags, _ in
                    out.append(make(resourceDir, prefix, name, flags.contains(.directory)))
                }
            }
            return out
        }
    }

    /// `[bundle/][resourceDir/]prefix+name` in one allocation: a hit's path (with the bundle
    /// path) or its relative path (without), as `hit(resourceDir:_:verbatim:)` spells it for a
    /// value without dot segments.
    private func spell(bundle: String?, resourceDir: String, prefix: String, name: UnsafeRawBufferPointer) -> String {
        let count = (bundle.map { $0.utf8.count + 1 } ?? 0) + (resourceDir.isEmpty ? 0 : resourceDir.utf8.count + 1)
            + prefix.utf8.count + name.count
        return String(unsafeUninitializedCapacity: count) { buffer in
            // A pointer moved along, not a counter captured by local functions: those made every
            // step a dynamic exclusivity check (~9 % of `QueryProfile … paths-cases`).
            guard var at = UnsafeMutableRawPointer(buffer.baseAddress) else { return 0 }
            let start = at
            if let bundle { at = Self.put(bundle, slash: true, at: at) }
            if !resourceDir.isEmpty { at = Self.put(resourceDir, slash: true, at: at) }
            at = Self.put(prefix, slash: false, at: at)
            if let source = name.baseAddress {
                at.copyMemory(from: source, byteCount: name.count)
                at += name.count
            }
            return at - start
        }
    }

    /// Copies `text`'s UTF-8 (and a `/`) to `at`; returns the byte after them.
    private static func put(_ text: String, slash: Bool, at: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        var at = at
        text.withUTF8Bytes { bytes in
            guard let source = bytes.baseAddress else { return }
            at.copyMemory(from: source, byteCount: bytes.count)
            at += bytes.count
        }
        if slash {
            at.storeBytes(of: UInt8(ascii: "/"), as: UInt8.self)
            at += 1
        }
        return at
    }

    // MARK: -

    private func isNameKey(_ key: LookupRequest.Key) -> Bool {
        if case .name = key { return true }
        return false
    }

    /// An empty result in a version-0 bundle is looked up again relative to the bundle root
    /// (`Resources` and `Resources/x` subdirectories are mapped instead; docs/search-pattern.md,
    /// "Version-0 root fallback").
    private func withFallback<T>(_ request: LookupRequest, _ body: (String, String?) throws -> [T]) throws -> [T] {
        let layout = search.bundle.layout
        let resourceDir = layout.resourceDirectory
        let first = try body(resourceDir, request.subdirectory)
        guard first.isEmpty, search.plan.hasRootFallback else { return first }
        let sub = request.subdirectory
        let own = layout == .resources ? "Resources" : "Contents/Resources"
        if sub == own { return try body(resourceDir, nil) }
        if let sub, let below = PathText.below(own, in: sub), !below.isEmpty {
            return try body(resourceDir, below)
        }
        return try body("", sub)
    }

    private func findSingle(_ key: LookupRequest.Key, resourceDir: String, sub: String?, localization: Localization) throws -> String? {
        let value = try search.first(key, resourceDir: resourceDir, sub: sub)
        guard case .given(let loc) = localization else { return value }
        let l = (loc?.isEmpty ?? true) ? nil : loc
        if let value {
            if !isLocalized(value, sub: sub) { return value }
            if let l, value.withUTF8Bytes({ startsWithLanguage($0, l) }) { return value }
        }
        guard let l else { return nil }
        return try search.first(key, resourceDir: resourceDir, sub: localizedSubdirectory(l, sub))
    }

    private func findArray(_ key: LookupRequest.Key, resourceDir: String, sub: String?, localization: Localization) throws -> [String] {
        guard case .given(let loc) = localization else { return try search.all(key, resourceDir: resourceDir, sub: sub) }
        let l = (loc?.isEmpty ?? true) ? nil : loc
        let found = try search.elements(key, resourceDir: resourceDir, sub: sub)
        let (kept, lprojFound) = keptForLocalization(found, l, sub: sub)
        var values = kept.map(found.value)
        if let l, !lprojFound {
            values += try search.all(key, resourceDir: resourceDir, sub: localizedSubdirectory(l, sub))
        }
        return values
    }

    /// CF's `forLocalization:` filter of an array (docs/search-pattern.md, "forLocalization is
    /// literal"): CF walks its array in its own (readdir) order and stops at the first localized
    /// element of another lproj; what survives is reported in byte order inside each run (the
    /// indices of `elements` kept, ascending). Also whether an element of `<l>.lproj` survived
    /// (else that folder is searched next).
    private func keptForLocalization(_ elements: ResourceSearch.Elements, _ l: String?,
                                     sub: String?) -> (indices: [Int], lprojFound: Bool) {
        let list = elements.list
        var walk = Array(list.indices)
        walk.sort { (list[$0].run, list[$0].rank) < (list[$1].run, list[$1].rank) }
        var keptCount = walk.count
        var lprojFound = false
        for (position, index) in walk.enumerated() {
            let stop = elements.withValue(index) { value in
                guard isLocalized(value, sub: sub) else { return false }
                guard let l, startsWithLanguage(value, l) else { return true }
                lprojFound = true
                return false
            }
            if stop { keptCount = position; break }
        }
        var kept = Array(walk[..<keptCount])
        kept.sort()
        return (kept, lprojFound)
    }

    /// Whether `value` starts with `l` and a dot: CF's anchored `CFStringFindWithOptions` of `l`,
    /// then of `.` right after it (`_copyResourceURLsFromBundle`), which compare code units;
    /// Swift's `hasPrefix` would also take a canonically equivalent spelling of `l`.
    private func startsWithLanguage(_ value: UnsafeBufferPointer<UInt8>, _ l: String) -> Bool {
        l.withUTF8Bytes { l in
            value.count > l.count && value[l.count] == UInt8(ascii: ".") && value.starts(with: l)
        }
    }

    private func localizedSubdirectory(_ l: String, _ sub: String?) -> String {
        guard let sub, !sub.isEmpty else { return l + ".lproj" }
        return PathComponents.append(l + ".lproj", sub)
    }

    /// CF's test for "this table value came from an lproj" (docs/search-pattern.md,
    /// L-lproj-substring): with a subdirectory,
    /// it occurs in the path at an index > 0; without one, `.lproj` occurs with at least two
    /// characters (UTF-16 code units, as CF counts) after it. A substring test, quirks included.
    /// Searched in UTF-8: an occurrence of a whole string's encoding starts at the same
    /// character in both encodings, so "first at index > 0" and "what follows the first" agree.
    private func isLocalized(_ path: String, sub: String?) -> Bool {
        path.withUTF8Bytes { isLocalized($0, sub: sub) }
    }

    private func isLocalized(_ hay: UnsafeBufferPointer<UInt8>, sub: String?) -> Bool {
        if let sub, !sub.isEmpty {
            guard let at = sub.withUTF8Bytes({ firstOccurrence(of: $0, in: hay) }) else { return false }
            return at > 0
        }
        guard let j = DirectLookup.lprojSuffix.withUnsafeBufferPointer({ firstOccurrence(of: $0, in: hay) }) else { return false }
        // UTF-16 code units after `.lproj`: one per UTF-8 lead byte, two for a 4-byte one.
        var after = 0
        for byte in hay[(j + DirectLookup.lprojSuffix.count)...] where byte & 0xC0 != 0x80 {
            after += byte >= 0xF0 ? 2 : 1
            if after >= 2 { return true }
        }
        return false
    }

    /// A name lookup's path is the table value appended verbatim; type lookups and arrays
    /// go through relative URLs, which drop dot segments. `.path` drops a directory's `/`
    /// (docs/search-pattern.md, "Returned paths").
    private func hit(resourceDir: String, _ value: String, verbatim: Bool) -> ResourceHit {
        var rel = resourceDir.isEmpty ? value : resourceDir + "/" + value
        if !verbatim { rel = PathComponents.removingDotSegments(rel) }
        let isDirectory = rel.hasSuffix("/")
        if isDirectory { rel.removeLast() }
        return ResourceHit(bundlePath: search.bundle.path, relativePath: rel.isEmpty ? "." : rel, isDirectory: isDirectory)
    }
}

extension IndexedBundle {
    /// Whether a single lookup of `name` and `type` spells its hit verbatim (a lookup by name)
    /// rather than through a relative URL that drops dot segments (a lookup by type, or of
    /// every entry): docs/search-pattern.md, "Returned paths". Arrays never do.
    package static func spellsVerbatim(name: String?, type: String?) -> Bool {
        guard let request = LookupRequest(name: name, type: type, subdirectory: nil) else { return true }
        if case .name = request.key { return true }
        return false
    }
}
