/// Everything about a bundle's search that does not depend on the query, computed once per
/// (bundle, context) when the bundle is opened: the derived Info.plist facts, the search steps,
/// and the directories (with their key hashes) the steps read for the common query — no
/// subdirectory, the bundle's own resource directory.
final class SearchPlan: Sendable {
    let record: BundleRecord
    let context: SearchContext
    let info: BundleInfo
    let steps: [ResourceSearch.Step]
    /// Per step: the directory read and CF's path prefix, for `subdirectory == nil`.
    let plainDirectories: [DirectoryRef]
    let plainPrefixes: [String]
    /// Per step: whether its directory can exist — the global one always, an lproj step only when
    /// the bundle's resource directory had an entry `<l>.lproj` when it was scanned. A step that
    /// cannot exist is not read at all (a miss costs one read per existing step), as CF's bundle
    /// consults its cached list of lproj folders.
    let stepMayExist: [Bool]
    /// The longest directory path of `plainDirectories`, in bytes.
    let longestPlainDirectory: Int
    /// The names of the bundle's lproj folders (without `.lproj`).
    let lprojNames: Set<String>
    /// Whether one of them has a dot (`en.x`): CF's `forLocalization:` filter tests a path for
    /// the prefix `L.`, which `en.x.lproj/…` passes for `en` (DirectLookup leaves such bundles
    /// to the general lookup).
    let lprojNameHasDot: Bool
    /// A miss in a version-0 bundle (or /Library/Spotlight) is looked up again from the
    /// bundle root (docs/search-pattern.md, "Version-0 root fallback").
    let hasRootFallback: Bool
    /// Where `DirectLookup` searches: the resource directory, and the bundle root when the
    /// bundle has the version-0 fallback.
    let resourceBase: SearchBase
    let rootBase: SearchBase?
    /// Answers of `path(forResource:…)` already given, for repeat asks.
    let answers = AnswerCache()
    /// The localized Info dictionary, once read.
    let localizedInfo = TransactionMemo<[String: PropertyListValue]?>()
    /// The localized strings answered since the index last changed (`LocalizedStringMemo`).
    let strings = LocalizedStringMemo()

    init(record: BundleRecord, context: SearchContext) {
        self.record = record
        self.context = context
        let info = BundleInfo(record: record, context: context)
        self.info = info
        var steps = [ResourceSearch.Step(lproj: nil, firstLproj: false)]
        if let first = info.searchList.first { steps.append(.init(lproj: first, firstLproj: true)) }
        steps.append(.init(lproj: "Base", firstLproj: true))
        for l in info.searchList.dropFirst() { steps.append(.init(lproj: l, firstLproj: false)) }
        self.steps = steps
        let resourceDir = record.layout.resourceDirectory
        plainDirectories = steps.map { DirectoryRef(PathText.join(resourceDir, $0.lproj.map { $0 + ".lproj" } ?? "")) }
        plainPrefixes = steps.map { $0.lproj.map { $0 + ".lproj/" } ?? "" }
        let lprojs = Set(record.lprojs)
        stepMayExist = steps.map { step in step.lproj.map { lprojs.contains($0) } ?? true }
        longestPlainDirectory = plainDirectories.map(\.path.utf8.count).max() ?? 0
        lprojNames = lprojs
        lprojNameHasDot = record.lprojs.contains { $0.utf8.contains(UInt8(ascii: ".")) }
        hasRootFallback = record.layout == .resources
            || (record.layout == .contents && record.path == "/Library/Spotlight")
        resourceBase = SearchBase(directories: plainDirectories, mayExist: stepMayExist, lprojNames: lprojs)
        // The record lists the resource directory's lproj folders, not the root's: every root
        // step is read.
        rootBase = hasRootFallback
            ? SearchBase(directories: steps.map { DirectoryRef($0.lproj.map { $0 + ".lproj" } ?? "") },
                         mayExist: steps.map { _ in true }, lprojNames: nil)
            : nil
    }
}

/// The directories a search's steps read, from one starting folder.
struct SearchBase: Sendable {
    /// Per step: the directory (relative to the bundle root) and its key.
    let directories: [DirectoryRef]
    /// Per step: whether its directory can exist (steps that cannot are not read).
    let mayExist: [Bool]
    /// The starting folder's lproj names, when known.
    let lprojNames: Set<String>?
}
