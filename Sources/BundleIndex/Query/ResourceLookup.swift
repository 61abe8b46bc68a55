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

    // MARK: -

    private func isNameKey(_ key: LookupRequest.Key) -> Bool {
        if case .name = key { return true }
        return false
    }

    /// An empty result in a version-0 bundle is looked up again relative to the bundle root
    /// (`Resources` and `Resources/x` subdirectories are mapped instead; docs/search-pattern.md,
    /// "Version-0 root fallback").
    private func withFallback(_ request: LookupRequest,
                              _ body: (String, String?) throws -> [ResourceHit]) throws -> [ResourceHit] {
        let layout = search.bundle.layout
        let resourceDir = layout.resourceDirectory
        let first = try body(resourceDir, request.subdirectory)
        guard first.isEmpty, search.plan.hasRootFallback else { return first }
        let sub = request.subdirectory
        let own = layout == .resources ? "Resources" : "Contents/Resources"
        if sub == own { return try body(resourceDir, nil) }
        if let sub, sub.utf16.count > own.utf16.count + 1, sub.hasPrefix(own + "/") {
            return try body(resourceDir, String(sub.dropFirst(own.count + 1)))
        }
        return try body("", sub)
    }

    private func findSingle(_ key: LookupRequest.Key, resourceDir: String, sub: String?, localization: Localization) throws -> String? {
        let value = try search.first(key, resourceDir: resourceDir, sub: sub)
        guard case .given(let loc) = localization else { return value }
        let l = (loc?.isEmpty ?? true) ? nil : loc
        if let value {
            if !isLocalized(value, sub: sub) { return value }
            if let l, value.hasPrefix(l + ".") { return value }
        }
        guard let l else { return nil }
        return try search.first(key, resourceDir: resourceDir, sub: localizedSubdirectory(l, sub))
    }

    private func findArray(_ key: LookupRequest.Key, resourceDir: String, sub: String?, localization: Localization) throws -> [String] {
        guard case .given(let loc) = localization else { return try search.all(key, resourceDir: resourceDir, sub: sub) }
        let l = (loc?.isEmpty ?? true) ? nil : loc
        // CF walks its array in its own (readdir) order and stops at the first localized element
        // of another lproj; what survives is then reported in byte order inside each run.
        let elements = try search.elements(key, resourceDir: resourceDir, sub: sub)
            .sorted { ($0.run, $0.rank) < ($1.run, $1.rank) }
        var kept: [ResourceSearch.Element] = []
        var lprojFound = false
        for e in elements {
            if isLocalized(e.value, sub: sub) {
                guard let l, e.value.hasPrefix(l + ".") else { break }
                lprojFound = true
            }
            kept.append(e)
        }
        var values = kept.sorted { $0.order < $1.order }.map(\.value)
        if let l, !lprojFound {
            values += try search.all(key, resourceDir: resourceDir, sub: localizedSubdirectory(l, sub))
        }
        return values
    }

    private func localizedSubdirectory(_ l: String, _ sub: String?) -> String {
        guard let sub, !sub.isEmpty else { return l + ".lproj" }
        return PathComponents.append(l + ".lproj", sub)
    }

    /// CF's test for "this table value came from an lproj" (docs/search-pattern.md,
    /// L-lproj-substring): with a subdirectory,
    /// it occurs in the path at an index > 0; without one, `.lproj` occurs with at least two
    /// characters after it. A substring test, quirks included.
    private func isLocalized(_ path: String, sub: String?) -> Bool {
        let p = Array(path.utf16)
        if let sub, !sub.isEmpty {
            guard let at = firstIndex(of: Array(sub.utf16), in: p) else { return false }
            return at > 0
        }
        guard let j = firstIndex(of: Array(".lproj".utf16), in: p) else { return false }
        return j + 7 < p.count
    }

    private func firstIndex(of needle: [UInt16], in hay: [UInt16]) -> Int? {
        guard !needle.isEmpty, needle.count <= hay.count else { return nil }
        for i in 0...(hay.count - needle.count) where hay[i..<(i + needle.count)].elementsEqual(needle) { return i }
        return nil
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
