/// One indexed bundle, with Foundation's `Bundle` API answered from the index under a search
/// context (`IndexReader.bundle(_:context:)` makes one).
///
/// ```swift
/// let app = try index.bundle(atPath: "/apps/Phone.app", context: .apple(languages: ["fr"]))!
/// let strings = try app.path(forResource: "Localizable", ofType: "strings")   // …/fr.lproj/Localizable.strings
/// let icons = try app.paths(forResourcesOfType: "png", inDirectory: nil)
/// ```
///
/// Resource lookups read the index live, so they see every commit of a `build` or a watcher
/// (a `path(forResource:…)` asked again is answered from memory until the next commit).
/// The bundle's Info.plist facts and language search list are taken when it is opened: open
/// it again when `IndexReader.generation()` moves. Methods throw (a `BundleIndexError`) only
/// when the index itself cannot be read; "not found" is `nil` or an empty array.
public struct IndexedBundle: Sendable {
    let reader: IndexReader
    /// Info.plist facts, search steps and directory keys under `context`, derived once; one
    /// reference, so passing a bundle around costs one retain.
    let plan: SearchPlan

    var record: BundleRecord { plan.record }
    /// The rules, languages, platform and device this bundle answers under.
    public var context: SearchContext { plan.context }
    private var info: BundleInfo { plan.info }

    /// `transaction`: the commit `record` was read in (`SearchPlan.recordTransaction`).
    init(reader: IndexReader, record: BundleRecord, readIn transaction: UInt64, context: SearchContext) {
        self.init(reader: reader, plan: SearchPlan(record: record, readIn: transaction, context: context,
                                                  shared: reader.planParts))
    }

    init(reader: IndexReader, plan: SearchPlan) {
        self.reader = reader
        self.plan = plan
    }

    /// The same bundle answering under another context.
    public func with(context: SearchContext) -> IndexedBundle {
        IndexedBundle(reader: reader, record: record, readIn: plan.recordTransaction, context: context)
    }

    // MARK: locations

    /// `Bundle.bundlePath`: the bundle's absolute path, as it was indexed.
    public var bundlePath: String { record.path }
    /// Where the bundle keeps its resources and Info.plist.
    public var layout: BundleLayout { record.layout }
    /// What the scanner could not read in this bundle when it indexed it (a broken Info.plist,
    /// an unreadable folder…), one sentence each.
    public var warnings: [String] { record.warnings }

    /// `Bundle.resourcePath`: the absolute path of the folder resources are searched in.
    public var resourcePath: String {
        let dir = record.layout.resourceDirectory
        return dir.isEmpty ? record.path : record.path + "/" + dir
    }

    // MARK: resources

    /// `Bundle.path(forResource:ofType:)`: the absolute path of the resource the search pattern
    /// finds first (docs/search-pattern.md), or nil. `type` may be nil or empty (then `name`
    /// may carry its extension) and `name` may be nil (then the first resource of `type`).
    public func path(forResource name: String?, ofType type: String?) throws -> String? {
        try path(forResource: name, ofType: type, inDirectory: nil)
    }

    /// `Bundle.path(forResource:ofType:inDirectory:)`: as `path(forResource:ofType:)`, looking in
    /// `subpath` of the resource folder and of each language folder.
    public func path(forResource name: String?, ofType type: String?, inDirectory subpath: String?) throws -> String? {
        try remembered(name, type, subpath, .none) { snap in
            try single(in: snap, name, type, subpath, direct: Self.pathString, general: absolute)
        }
    }

    /// `path(forResource:ofType:inDirectory:)` without a `String`: `body` receives the path's
    /// UTF-8 bytes, valid only during the call; nil when there is no such resource. For
    /// a name (with or without a type) and no or a plain subdirectory, a hit allocates
    /// nothing (docs/performance.md) — but for the second lookup in a directory since the index
    /// last changed, which keeps that directory's table (`DirectoryTables`: three allocations,
    /// and now and then one for the note of the directories read); other queries answer through
    /// the general lookup.
    /// A reader that may not write the index's `lock.mdb` (another user of a shared index) reads
    /// without it, and a read that two commits overtook is made again: `body` then runs again,
    /// and the last call's result is returned (docs/reliability.md, "A shared index").
    @inlinable  // specialised in the caller: an unspecialised generic closure costs more than the lookup
    public func withPath<R>(forResource name: String?, ofType type: String?, inDirectory subpath: String? = nil,
                            _ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R? {
        var result: R?
        try visitPath(name, type, subpath) { result = try body($0) }
        return result
    }

    /// `withPath`'s work, not generic: calls `body` once with the path when there is one.
    @usableFromInline
    func visitPath(_ name: String?, _ type: String?, _ subpath: String?, _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        try single(name, type, subpath, direct: { try body($0.path) }, general: { hit in
            var path = absolute(hit)
            try path.withUTF8(body)
        })
    }

    /// `Bundle.path(forResource:ofType:inDirectory:forLocalization:)`: the global folder, then
    /// `localization.lproj` literally (no Base, no fallbacks); nil `localization` means global
    /// resources only.
    public func path(forResource name: String?, ofType type: String?, inDirectory subpath: String?,
                     forLocalization localization: String?) throws -> String? {
        try remembered(name, type, subpath, .some(localization)) { snap in
            try localized(in: snap, name, type, subpath, localization, direct: Self.pathString,
                          general: absolute)
        }
    }

    /// `path(forResource:ofType:inDirectory:)` read from the index even when the answer is in
    /// memory: what a first ask costs, for the benchmarks that guard the engine.
    @_spi(Engine)
    public func pathReadingIndex(forResource name: String?, ofType type: String?, inDirectory subpath: String?) throws -> String? {
        try single(name, type, subpath, direct: Self.pathString, general: absolute)
    }

    /// `path(forResource:ofType:inDirectory:forLocalization:)` read from the index even when the
    /// answer is in memory (see `pathReadingIndex(forResource:ofType:inDirectory:)`).
    @_spi(Engine)
    public func pathReadingIndex(forResource name: String?, ofType type: String?, inDirectory subpath: String?,
                                 forLocalization localization: String?) throws -> String? {
        try localized(name, type, subpath, localization, direct: Self.pathString, general: absolute)
    }

    /// A direct hit's path as a `String`.
    private static func pathString(_ hit: DirectLookup.Hit) -> String { String(decoding: hit.path, as: UTF8.self) }

    /// A path answer from the bundle's `AnswerCache` when the index has not changed since it
    /// was read; else the direct lookup's, read from the kept tables and, where they lack a
    /// directory, a transaction begun for it (`directAnswer`); else `read` in a new snapshot.
    /// The answer is kept, unless the tables gave it without a read and the query is asked for
    /// the first time in the transaction (`AnswerCache`). `localization` is `.none` without
    /// `forLocalization:`.
    private func remembered(_ name: String?, _ type: String?, _ subpath: String?, _ localization: String??,
                            _ read: (IndexSnapshot) throws -> String?) throws -> String? {
        // Swift's Bundle answers nil before CF when both are nil or empty.
        if (name ?? "").isEmpty && (type ?? "").isEmpty { return nil }
        let key = QueryKey(name: name, type: type, subdirectory: subpath, localization: localization)
        let newest = reader.store.environment.newestTransactionID()
        let (known, askedBefore) = plan.answers.answerOrMark(key, name: name, type: type, subdirectory: subpath,
                                                             localization: localization, newest: newest)
        if let known { return known }
        if let (answer, readIndex) = directAnswer(name, type, subpath, localization, newest: newest) {
            if askedBefore || readIndex {
                plan.answers.store(answer, for: key, name: name, type: type, subdirectory: subpath,
                                   localization: localization, transaction: newest)
            }
            return answer
        }
        return try reader.store.read { snap in
            let answer = try read(snap)
            plan.answers.store(answer, for: key, name: name, type: type, subdirectory: subpath,
                               localization: localization, transaction: snap.transactionID)
            return answer
        }
    }

    /// The answer of the direct lookup read from the tables kept for commit `newest`, with a
    /// read transaction begun only when a directory is not kept there
    /// (`DirectorySource.lazy`), and whether it began one. Nil when the lookup must be made in
    /// a snapshot: the query is not the direct lookup's, it needs the general lookup (which
    /// then runs the direct lookup a second time), or a commit came in between. The route is
    /// `single`'s or `localized`'s, as `localization` says (`.none`: without `forLocalization:`).
    private func directAnswer(_ name: String?, _ type: String?, _ subpath: String?, _ localization: String??,
                              newest: UInt64) -> (answer: String?, readIndex: Bool)? {
        guard let name else { return nil }
        let route: DirectLookup.Route
        switch localization {
        case .none:
            guard DirectLookup.accepts(name: name, type: type, subdirectory: subpath) else { return nil }
            route = .searchList
        case .some(let l):
            guard DirectLookup.accepts(name: name, type: type, subdirectory: subpath, localization: l, plan: plan) else { return nil }
            route = .localization(l)
        }
        var source = DirectorySource.lazy(store: reader.store, transaction: newest)
        defer { source.end() }
        // Any error (a restart, or the index's own) sends the lookup to a snapshot, which
        // reports the index's errors as every read does.
        switch try? DirectLookup.find(plan: plan, name: name, type: type, subdirectory: subpath, route: route,
                                      in: &source, Self.pathString) {
        case .found(let path): return (path, source.readIndex)
        case .notFound: return (nil, source.readIndex)
        case .general, nil: return nil
        }
    }

    /// `Bundle.paths(forResourcesOfType:inDirectory:)`: absolute paths of every resource of
    /// `type` (every resource when nil or empty) along the search list, with CF's type hiding
    /// (docs/search-pattern.md).
    public func paths(forResourcesOfType type: String?, inDirectory subpath: String?) throws -> [String] {
        try reader.store.read { try lookup($0).absolutePaths(type: type, subdirectory: subpath, localization: .unspecified) }
    }

    /// `Bundle.paths(forResourcesOfType:inDirectory:forLocalization:)`: global resources, then
    /// those of `localization.lproj` literally.
    public func paths(forResourcesOfType type: String?, inDirectory subpath: String?,
                      forLocalization localization: String?) throws -> [String] {
        try reader.store.read { try lookup($0).absolutePaths(type: type, subdirectory: subpath, localization: .given(localization)) }
    }

    /// Like `path(...)`, with Foundation's directory flag (`url(...).hasDirectoryPath`).
    public func resource(named name: String?, ofType type: String?, inDirectory subpath: String? = nil) throws -> ResourceHit? {
        try single(name, type, subpath, direct: {
            ResourceHit(bundlePath: record.path, relativePath: String(decoding: $0.relativePath, as: UTF8.self),
                        isDirectory: $0.isDirectory)
        }, general: { $0 })
    }

    /// `resource(named:ofType:inDirectory:)` with `forLocalization:` (see
    /// `path(forResource:ofType:inDirectory:forLocalization:)`).
    public func resource(named name: String?, ofType type: String?, inDirectory subpath: String?,
                         forLocalization localization: String?) throws -> ResourceHit? {
        try localized(name, type, subpath, localization, direct: {
            ResourceHit(bundlePath: record.path, relativePath: String(decoding: $0.relativePath, as: UTF8.self),
                        isDirectory: $0.isDirectory)
        }, general: { $0 })
    }

    /// `paths(forResourcesOfType:inDirectory:)` as hits relative to the bundle, with their
    /// directory flags.
    public func resources(ofType type: String?, inDirectory subpath: String?) throws -> [ResourceHit] {
        try hits(type, subpath, .unspecified)
    }

    /// `paths(forResourcesOfType:inDirectory:forLocalization:)` as hits relative to the bundle.
    public func resources(ofType type: String?, inDirectory subpath: String?, forLocalization localization: String?) throws -> [ResourceHit] {
        try hits(type, subpath, .given(localization))
    }

    // MARK: localization

    /// `Bundle.localizations` (docs/search-pattern.md, "The localization list"; lproj names in
    /// byte order).
    public var localizations: [String] { info.localizations }

    /// `Bundle.developmentLocalization`: nil when Info.plist has none (Foundation on Linux traps).
    public var developmentLocalization: String? { info.developmentRegion }

    /// The bundle's language search list: its best localization for the context's languages,
    /// then that one's fallbacks (docs/search-pattern.md, "The language search list").
    public var languageSearchList: [String] { info.searchList }

    /// The folders a lookup reads, in order, relative to the resource folder: "" (the global
    /// folder), the first language's `.lproj`, `Base.lproj`, then the other languages' folders.
    /// Folders the bundle does not have are listed too (a lookup skips them).
    public var lookupOrder: [String] { plan.steps.map { $0.lproj.map { $0 + ".lproj" } ?? "" } }

    /// `Bundle.preferredLocalizations`: the bundle's localizations that best match the
    /// context's languages (foundation-linux: the development localization, as on Linux).
    public var preferredLocalizations: [String] {
        switch context.profile {
        case .foundationLinux: BundleInfo.preferredLocalizations(from: localizations, preferences: nil, context: context)
        // The matcher's answer for these localizations and languages, made once per reader.
        case .apple: reader.planParts.preferredLocalizations(from: localizations, preferences: context.preferredLanguages)
        }
    }

    /// `Bundle.preferredLocalizations(from:forPreferences:)` under `context` (nil preferences:
    /// the context's languages).
    public static func preferredLocalizations(from list: [String], forPreferences preferences: [String]?,
                                              context: SearchContext = .userDefault) -> [String] {
        BundleInfo.preferredLocalizations(from: list, preferences: preferences, context: context)
    }

    // MARK: Info.plist

    /// `Bundle.infoDictionary`: the Info.plist the profile reads (in the apple profile with
    /// `Key-platform~device` overrides applied).
    public var infoDictionary: [String: PropertyListValue] { info.infoDictionary }
    /// `Bundle.bundleIdentifier`: `CFBundleIdentifier` of the Info.plist, or nil.
    public var bundleIdentifier: String? { info.identifier }

    /// The `InfoPlist.strings` the search finds, parsed (docs/search-pattern.md, "Localized
    /// Info dictionary"); nil when there is none. Asked again before the next commit, it is
    /// answered from memory.
    public func localizedInfoDictionary() throws -> [String: PropertyListValue]? {
        let newest = reader.store.environment.newestTransactionID()
        if let known = plan.localizedInfo.value(newest: newest) { return known }
        // The search and the read of the file's record in one snapshot.
        let (found, transaction): ([String: PropertyListValue]??, UInt64) = try reader.store.read { snap in
            guard let hit = try lookup(snap).single(name: "InfoPlist", type: "strings", subdirectory: nil,
                                                    localization: .unspecified) else { return (.none, snap.transactionID) }
            let directory = PathText.components(hit.relativePath, omittingEmpty: true).dropLast().joined(separator: "/")
            return (try snap.strings(bundle: record.id, directory: directory, name: PathText.lastComponent(hit.relativePath)),
                    snap.transactionID)
        }
        var answer: [String: PropertyListValue]? = nil
        if let local = found ?? nil {
            answer = context.profile == .apple ? InfoPlistOverrides(context: context).apply(to: local) : local
        }
        plan.localizedInfo.store(answer, transaction: transaction)
        return answer
    }

    /// `Bundle.object(forInfoDictionaryKey:)`. foundation-linux: the localized dictionary when
    /// one exists (even when it lacks the key), else Info.plist (docs/search-pattern.md,
    /// L-no-info-fallback). apple: the localized
    /// value, else the Info.plist value (CF's own rule).
    public func object(forInfoDictionaryKey key: String) throws -> PropertyListValue? {
        guard let local = try localizedInfoDictionary() else { return infoDictionary[key] }
        switch context.profile {
        case .foundationLinux: return local[key]
        case .apple: return local[key] ?? infoDictionary[key]
        }
    }

    // MARK: -

    /// The general lookup (every query kind), without the allocation-free shortcut.
    func hit(_ name: String?, _ type: String?, _ sub: String?, _ loc: ResourceLookup.Localization) throws -> ResourceHit? {
        // Swift's Bundle answers nil before CF when both are nil or empty.
        if (name ?? "").isEmpty && (type ?? "").isEmpty { return nil }
        return try reader.store.read { snap in
            try lookup(snap).single(name: name, type: type, subdirectory: sub, localization: loc)
        }
    }

    /// The general array lookup, each hit spelled through its relative path (`direct` skips
    /// that where it can).
    func generalHits(_ type: String?, _ sub: String?, _ loc: ResourceLookup.Localization) throws -> [ResourceHit] {
        try reader.store.read { try lookup($0).array(type: type, subdirectory: sub, localization: loc) }
    }

    /// A single lookup without `forLocalization:`, in one snapshot: the allocation-free
    /// `DirectLookup` when the query is of its kind (its hit goes to `direct`), the general
    /// lookup otherwise and for the version-0 root fallback (its hit goes to `general`).
    private func single<R>(_ name: String?, _ type: String?, _ sub: String?,
                           direct: (DirectLookup.Hit) throws -> R, general: (ResourceHit) throws -> R) throws -> R? {
        // Swift's Bundle answers nil before CF when both are nil or empty.
        if (name ?? "").isEmpty && (type ?? "").isEmpty { return nil }
        return try reader.store.read { snap in try single(in: snap, name, type, sub, direct: direct, general: general) }
    }

    /// A single `forLocalization:` lookup in one snapshot: `DirectLookup`'s localization route
    /// when it takes the query and settles it, the general lookup otherwise.
    private func localized<R>(_ name: String?, _ type: String?, _ sub: String?, _ localization: String?,
                              direct: (DirectLookup.Hit) throws -> R, general: (ResourceHit) throws -> R) throws -> R? {
        // Swift's Bundle answers nil before CF when both are nil or empty.
        if (name ?? "").isEmpty && (type ?? "").isEmpty { return nil }
        return try reader.store.read { snap in try localized(in: snap, name, type, sub, localization, direct: direct, general: general) }
    }

    func localized<R>(in snap: IndexSnapshot, _ name: String?, _ type: String?, _ sub: String?, _ localization: String?,
                              direct: (DirectLookup.Hit) throws -> R, general: (ResourceHit) throws -> R) throws -> R? {
        if let name, DirectLookup.accepts(name: name, type: type, subdirectory: sub, localization: localization, plan: plan) {
            var source = DirectorySource.snapshot(snap)
            switch try DirectLookup.find(plan: plan, name: name, type: type, subdirectory: sub,
                                         route: .localization(localization), in: &source, direct) {
            case .found(let result): return result
            case .notFound: return nil
            case .general: break
            }
        }
        return try lookup(snap).single(name: name, type: type, subdirectory: sub, localization: .given(localization)).map(general)
    }

    /// `single`'s route inside one snapshot (also what `readsForLookup` counts).
    func single<R>(in snap: IndexSnapshot, _ name: String?, _ type: String?, _ sub: String?,
                           direct: (DirectLookup.Hit) throws -> R, general: (ResourceHit) throws -> R) throws -> R? {
        guard let name, DirectLookup.accepts(name: name, type: type, subdirectory: sub) else {
            return try lookup(snap).single(name: name, type: type, subdirectory: sub, localization: .unspecified).map(general)
        }
        var source = DirectorySource.snapshot(snap)
        switch try DirectLookup.find(plan: plan, name: name, type: type, subdirectory: sub, in: &source, direct) {
        case .found(let result): return result
        case .notFound: return nil
        case .general:
            return try lookup(snap).single(name: name, type: type, subdirectory: sub, localization: .unspecified).map(general)
        }
    }

    private func hits(_ type: String?, _ sub: String?, _ loc: ResourceLookup.Localization) throws -> [ResourceHit] {
        try reader.store.read { snap in
            try lookup(snap).directHits(type: type, subdirectory: sub, localization: loc)
        }
    }

    func lookup(_ snap: IndexSnapshot) -> ResourceLookup {
        ResourceLookup(search: ResourceSearch(snapshot: snap, plan: plan))
    }

    func absolute(_ hit: ResourceHit) -> String { hit.path }
}
