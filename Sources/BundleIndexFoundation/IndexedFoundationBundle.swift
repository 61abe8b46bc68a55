// Without CoreFoundation, `Bundle`'s overridable members cannot be loaded and the subclass is refused.
import CoreFoundation
import Foundation
import BundleIndex

/// A `Bundle` that answers resource lookups from a bundleidx index: a drop-in for
/// `Bundle(path:)` (docs/foundation-dropin.md).
///
/// ```swift
/// let app = IndexedFoundationBundle(path: "/apps/Phone.app")!   // was: Bundle(path:)
/// let logo = app.path(forResource: "logo", ofType: "png")      // a key read, not a directory scan
/// ```
///
/// It is nil exactly when `Bundle(path:)` would be. When the index is missing, unreadable, of
/// another format, or does not hold this bundle — and whenever a read of the index fails — every
/// method answers as `Bundle` itself does. Under the default profile (`.foundationLinux`) the
/// answers are Foundation-on-Linux's; resource lookups read the index's current state, where
/// Foundation keeps what it first read for the life of the process.
open class IndexedFoundationBundle: Bundle, @unchecked Sendable {
    /// The bundle in the index and the path Foundation reports for it (set once, in `init`).
    private var source: Source?

    private struct Source {
        let bundle: IndexedBundle
        /// `Bundle.bundlePath`: resources are spelled under it, as Foundation spells them (the
        /// index may hold the bundle under its resolved path).
        let base: String
        /// Whether `base` has `.` or `..` segments: only then does a hit's spelling depend on
        /// the kind of lookup (`path(_:verbatim:)`); the hit's own part is spelled already.
        let baseHasDotSegments: Bool

        init(bundle: IndexedBundle, base: String) {
            self.bundle = bundle
            self.base = base
            baseHasDotSegments = PathComponents.hasDotSegment(base)
        }

        /// The resource folder, under `base`. Foundation resolves the folder as a URL relative
        /// to the bundle's: a bundle opened as `…/Mac.app/Contents/..` has its resources in
        /// `…/Mac.app/Contents/Resources` (dot segments dropped, `//` kept), while a flat bundle's
        /// resource folder is `bundlePath` as it was given (review w26).
        var resourcePath: String {
            let folder = bundle.layout.resourceDirectory
            return folder.isEmpty ? base : PathComponents.removingDotSegments(base + "/" + folder)
        }

        /// The hit's path under `base`. A lookup by type, of every entry, or an array's element
        /// (`verbatim` false) goes through a URL relative to the bundle's, whose path Foundation
        /// gives without dot segments, the bundle's own included: a bundle opened as
        /// `…/bin/../share/A.app` lists `…/share/A.app/a.png` (docs/search-pattern.md, "Returned
        /// paths"). A lookup by name keeps `base` as it is. With a `base` without dot segments
        /// the two spell alike, and callers pass `verbatim` true, which spares the scan.
        func path(_ hit: ResourceHit, verbatim: Bool) -> String {
            let path = hit.relativePath == "." ? base : base + "/" + hit.relativePath
            return verbatim ? path : PathComponents.removingDotSegments(path)
        }

        func url(_ hit: ResourceHit, verbatim: Bool) -> URL {
            URL(fileURLWithPath: path(hit, verbatim: verbatim), isDirectory: hit.isDirectory)
        }

        func nsurl(_ hit: ResourceHit, verbatim: Bool) -> NSURL {
            NSURL(fileURLWithPath: path(hit, verbatim: verbatim), isDirectory: hit.isDirectory)
        }
    }

    /// `Bundle(path:)`, answered from the index at `IndexLocation.default`.
    public override convenience init?(path: String) {
        self.init(path: path, index: IndexLocation.default, context: .foundationLinux)
    }

    /// `Bundle(url:)`, answered from the index at `IndexLocation.default`.
    public convenience init?(url: URL) {
        self.init(path: url.path, index: IndexLocation.default, context: .foundationLinux)
    }

    /// `Bundle(url:)`, answered from the index directory `index` under `context` (see
    /// `init?(path:index:context:)`).
    public convenience init?(url: URL, index: String, context: SearchContext = .foundationLinux) {
        self.init(path: url.path, index: index, context: context)
    }

    /// `Bundle(path:)`, answered from the index directory `index` under `context`
    /// (`.foundationLinux`: Foundation-on-Linux's answers; `.apple(...)`: the documented
    /// bundle search pattern, which is not what `Bundle` answers on Linux).
    public init?(path: String, index: String, context: SearchContext = .foundationLinux) {
        super.init(path: path)
        let base = super.bundlePath
        if let reader = try? IndexReader(path: index),
           let found = try? reader.bundle(atPath: base, context: context) {
            source = Source(bundle: found, base: base)
        }
    }

    /// True when the index holds this bundle, so that lookups are answered from it.
    public var isIndexed: Bool { source != nil }

    /// The index's answer (a miss included), or `foundation`'s when this bundle is not indexed
    /// or the index cannot be read.
    private func answer<R>(_ body: (Source) throws -> R, else foundation: () -> R) -> R {
        // Generic `R`: `try?` keeps the index's nil (a miss) apart from a failed read.
        if let source, let result = try? body(source) { return result }
        return foundation()
    }

    /// One resource (`forLocalization:` when `localization` is not `.none`), spelled by `spell`
    /// (verbatim for a lookup by name: `Source.path(_:verbatim:)`).
    private func single<R>(_ name: String?, _ ext: String?, _ subpath: String?, _ localization: String??,
                           _ spell: (Source, ResourceHit, _ verbatim: Bool) -> R, else foundation: () -> R?) -> R? {
        answer({ s in
            let hit: ResourceHit?
            if let localization {
                hit = try s.bundle.resource(named: name, ofType: ext, inDirectory: subpath, forLocalization: localization)
            } else {
                hit = try s.bundle.resource(named: name, ofType: ext, inDirectory: subpath)
            }
            // The lookup's kind is asked only of a bundle path with dot segments: it parses the
            // name and type again.
            return hit.map { spell(s, $0, !s.baseHasDotSegments || IndexedBundle.spellsVerbatim(name: name, type: ext)) }
        }, else: foundation)
    }

    /// Every resource of a type (`forLocalization:` when `localization` is not `.none`), spelled by
    /// `spell` (never verbatim: `Source.path(_:verbatim:)`).
    private func listing<R>(_ ext: String?, _ subpath: String?, _ localization: String??,
                            _ spell: (Source, ResourceHit, _ verbatim: Bool) -> R) -> [R]? {
        guard let source else { return nil }
        let hits: [ResourceHit]?
        if let localization {
            hits = try? source.bundle.resources(ofType: ext, inDirectory: subpath, forLocalization: localization)
        } else {
            hits = try? source.bundle.resources(ofType: ext, inDirectory: subpath)
        }
        return hits?.map { spell(source, $0, !source.baseHasDotSegments) }
    }

    // MARK: single resources (Foundation: path(...) is url(...)?.path)

    /// `Bundle.url(forResource:withExtension:)`: `url(forResource:withExtension:subdirectory:)` with no subdirectory.
    open override func url(forResource name: String?, withExtension ext: String?) -> URL? {
        url(forResource: name, withExtension: ext, subdirectory: nil)
    }

    /// `Bundle.url(forResource:withExtension:subdirectory:)` from the index: a file URL, a directory's
    /// with `hasDirectoryPath`.
    open override func url(forResource name: String?, withExtension ext: String?, subdirectory subpath: String?) -> URL? {
        single(name, ext, subpath, .none, { $0.url($1, verbatim: $2) }) { super.url(forResource: name, withExtension: ext, subdirectory: subpath) }
    }

    /// `Bundle.url(forResource:withExtension:subdirectory:localization:)` from the index.
    open override func url(forResource name: String?, withExtension ext: String?, subdirectory subpath: String?,
                           localization localizationName: String?) -> URL? {
        single(name, ext, subpath, .some(localizationName), { $0.url($1, verbatim: $2) }) {
            super.url(forResource: name, withExtension: ext, subdirectory: subpath, localization: localizationName)
        }
    }

    /// `Bundle.path(forResource:ofType:)`: `path(forResource:ofType:inDirectory:)` with no subdirectory.
    open override func path(forResource name: String?, ofType ext: String?) -> String? {
        path(forResource: name, ofType: ext, inDirectory: nil)
    }

    /// `Bundle.path(forResource:ofType:inDirectory:)` from the index.
    open override func path(forResource name: String?, ofType ext: String?, inDirectory subpath: String?) -> String? {
        // The bundle opened by the path it is indexed under (no link on the way): the index
        // spells the path itself, in one string.
        if let source, sameBytes(source.base, source.bundle.bundlePath) {
            return answer({ s in try s.bundle.path(forResource: name, ofType: ext, inDirectory: subpath) },
                          else: { super.path(forResource: name, ofType: ext, inDirectory: subpath) })
        }
        return single(name, ext, subpath, .none, { $0.path($1, verbatim: $2) }) { super.path(forResource: name, ofType: ext, inDirectory: subpath) }
    }

    /// `Bundle.path(forResource:ofType:inDirectory:forLocalization:)` from the index.
    open override func path(forResource name: String?, ofType ext: String?, inDirectory subpath: String?,
                            forLocalization localizationName: String?) -> String? {
        single(name, ext, subpath, .some(localizationName), { $0.path($1, verbatim: $2) }) {
            super.path(forResource: name, ofType: ext, inDirectory: subpath, forLocalization: localizationName)
        }
    }

    // MARK: listings (Foundation: paths(...) is urls(...)'s paths)

    /// `Bundle.urls(forResourcesWithExtension:subdirectory:)` from the index.
    open override func urls(forResourcesWithExtension ext: String?, subdirectory subpath: String?) -> [NSURL]? {
        listing(ext, subpath, .none, { $0.nsurl($1, verbatim: $2) }) ?? super.urls(forResourcesWithExtension: ext, subdirectory: subpath)
    }

    /// `Bundle.urls(forResourcesWithExtension:subdirectory:localization:)` from the index.
    open override func urls(forResourcesWithExtension ext: String?, subdirectory subpath: String?,
                            localization localizationName: String?) -> [NSURL]? {
        listing(ext, subpath, .some(localizationName), { $0.nsurl($1, verbatim: $2) })
            ?? super.urls(forResourcesWithExtension: ext, subdirectory: subpath, localization: localizationName)
    }

    /// `Bundle.paths(forResourcesOfType:inDirectory:)` from the index.
    open override func paths(forResourcesOfType ext: String?, inDirectory subpath: String?) -> [String] {
        listing(ext, subpath, .none, { $0.path($1, verbatim: $2) }) ?? super.paths(forResourcesOfType: ext, inDirectory: subpath)
    }

    /// `Bundle.paths(forResourcesOfType:inDirectory:forLocalization:)` from the index.
    open override func paths(forResourcesOfType ext: String?, inDirectory subpath: String?,
                             forLocalization localizationName: String?) -> [String] {
        listing(ext, subpath, .some(localizationName), { $0.path($1, verbatim: $2) })
            ?? super.paths(forResourcesOfType: ext, inDirectory: subpath, forLocalization: localizationName)
    }

    // MARK: locations (Foundation: bundlePath is bundleURL's path, resourcePath resourceURL's)

    /// `Bundle.bundleURL`: the bundle's URL as Foundation made it when opening (every answer is
    /// spelled under its path).
    open override var bundleURL: URL {
        guard let source else { return super.bundleURL }
        return URL(fileURLWithPath: source.base, isDirectory: true)
    }

    /// `Bundle.bundlePath`, as Foundation reported it when opening.
    open override var bundlePath: String { source?.base ?? super.bundlePath }

    /// `Bundle.resourceURL` from the index: the bundle's resource folder by its layout
    /// (docs/search-pattern.md, "Bundle layouts"), spelled under `bundlePath`.
    open override var resourceURL: URL? {
        guard let source else { return super.resourceURL }
        return URL(fileURLWithPath: source.resourcePath, isDirectory: true)
    }

    /// `Bundle.resourcePath` from the index (see `resourceURL`).
    open override var resourcePath: String? {
        source?.resourcePath ?? super.resourcePath
    }

    // MARK: Info.plist facts and localizations

    /// `Bundle.bundleIdentifier`: the indexed Info.plist's `CFBundleIdentifier`.
    open override var bundleIdentifier: String? {
        guard let source else { return super.bundleIdentifier }
        return source.bundle.bundleIdentifier
    }

    /// `Bundle.localizations` from the index (lproj names in byte order where Foundation's are in
    /// readdir order).
    open override var localizations: [String] {
        source?.bundle.localizations ?? super.localizations
    }

    /// `Bundle.preferredLocalizations` from the index, under the context it was opened with.
    open override var preferredLocalizations: [String] {
        source?.bundle.preferredLocalizations ?? super.preferredLocalizations
    }

    /// `Bundle.infoDictionary` from the index (as Foundation's: the Info.plist the profile reads,
    /// with CF's `CFBundleNumericVersion`), in the types Foundation on Linux hands out (see
    /// `PropertyListValue.foundationObject`).
    open override var infoDictionary: [String: Any]? {
        guard let source else { return super.infoDictionary }
        return source.bundle.infoDictionary.mapValues(\.foundationObject)
    }

    /// `Bundle.localizedInfoDictionary` from the index: the `InfoPlist.strings` the search finds.
    open override var localizedInfoDictionary: [String: Any]? {
        answer({ s in try s.bundle.localizedInfoDictionary()?.mapValues(\.foundationObject) },
               else: { super.localizedInfoDictionary })
    }

    /// `Bundle.object(forInfoDictionaryKey:)` from the index: the localized dictionary's value when
    /// there is one (even without the key), else Info.plist's, as on Linux.
    open override func object(forInfoDictionaryKey key: String) -> Any? {
        answer({ s in try s.bundle.object(forInfoDictionaryKey: key)?.foundationObject },
               else: { super.object(forInfoDictionaryKey: key) })
    }

    /// `Bundle.localizedString(forKey:value:table:)` from the index: the entry of the table the
    /// search finds (its `.stringsdict` entries first), else `value`, else `key`; no table is
    /// parsed. A table too large to be indexed is left to Foundation.
    open override func localizedString(forKey key: String, value: String?, table tableName: String?) -> String {
        answer({ s in try s.bundle.localizedString(forKey: key, value: value, table: tableName) },
               else: { super.localizedString(forKey: key, value: value, table: tableName) })
    }

    /// `CFBundleDevelopmentRegion`, or nil when Info.plist has none (or it is empty or not a
    /// string): there Foundation on Linux traps, this answers nil as Apple's Foundation does.
    open override var developmentLocalization: String? {
        if let source { return source.bundle.developmentLocalization }
        guard let region = infoDictionary?["CFBundleDevelopmentRegion"] as? String, !region.isEmpty else { return nil }
        return super.developmentLocalization
    }
}

extension PropertyListValue {
    /// This value in the type Foundation on Linux hands out for it from `infoDictionary` and
    /// `object(forInfoDictionaryKey:)`: `String`, `NSNumber` for integers and reals, `Bool`,
    /// `Date`, `Data`, `[Any]`, and `[AnyHashable: Any]` for a dictionary inside one (the
    /// top level is `[String: Any]`). Before, strings, booleans, dates and data came out as
    /// `NSString`, `NSNumber`, `NSDate` and `NSData`: a boolean then cast to `Int` 1, where
    /// Foundation's `Bool` does not (review w24).
    var foundationObject: Any {
        switch self {
        case .string(let v): return v
        case .integer(let v): return NSNumber(value: v)
        case .real(let v): return NSNumber(value: v)
        case .bool(let v): return v
        case .date(let v): return Date(timeIntervalSince1970: v)
        case .data(let v): return Data(v)
        case .array(let v): return v.map(\.foundationObject)
        case .dictionary(let v):
            var out: [AnyHashable: Any] = [:]
            for (key, value) in v { out[AnyHashable(key)] = value.foundationObject }
            return out
        }
    }
}
