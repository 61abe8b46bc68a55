import Synchronization

/// The steps of a bundle's search and the folders they read for a lookup without a
/// subdirectory: the part of a `SearchPlan` that depends only on the bundle's layout and its
/// language search list. Under one context most bundles of an index share both, so a reader
/// makes each once (`SharedPlanParts`): composing the folder names and hashing them was a
/// fifth of opening a bundle (docs/performance.md, "Opening a bundle").
struct SearchSteps: Sendable {
    /// global, S0, Base, S1…Sn (docs/search-pattern.md, "Search order").
    let steps: [ResourceSearch.Step]
    /// Per step: the folder read, relative to the bundle root, and its key.
    let directories: [DirectoryRef]
    /// Per step: CF's path prefix of its entries, relative to the resource directory.
    let prefixes: [String]
    /// The longest of `directories`, in bytes.
    let longestDirectory: Int

    init(layout: BundleLayout, searchList: [String]) {
        var steps: [ResourceSearch.Step] = []
        steps.reserveCapacity(searchList.count + 2)
        steps.append(.init(lproj: nil, firstLproj: false))
        if let first = searchList.first { steps.append(.init(lproj: first, firstLproj: true)) }
        steps.append(.init(lproj: "Base", firstLproj: true))
        for l in searchList.dropFirst() { steps.append(.init(lproj: l, firstLproj: false)) }
        self.steps = steps
        let resourceDirectory = layout.resourceDirectory
        directories = steps.map { DirectoryRef(PathText.join(resourceDirectory, $0.lproj.map { $0 + ".lproj" } ?? "")) }
        prefixes = steps.map { $0.lproj.map { $0 + ".lproj/" } ?? "" }
        longestDirectory = directories.reduce(0) { max($0, $1.path.utf8.count) }
    }
}

/// What a reader's bundles share of their plans, made once per reader from a few strings of
/// each bundle: the search steps (by layout and search list) and, under the apple profile, the
/// language search list (by the bundle's localizations, its development region and the
/// preferred languages), whose matching cost ~28 000 instructions per open, and the preferred
/// localizations (by localizations and preferred languages; 6 µs per `preferredLocalizations`
/// before, docs/performance.md, "Opening a bundle"). None depends on the index's contents, so
/// a commit leaves them valid.
final class SharedPlanParts: Sendable {
    private let steps = SharedValues<StepsKey, SearchSteps>()
    private let searchLists = SharedValues<SearchListKey, [String]>()
    private let preferredLists = SharedValues<SearchListKey, [String]>()

    func steps(layout: BundleLayout, searchList: [String]) -> SearchSteps {
        steps.value(for: StepsKey(layout: layout, searchList: searchList)) {
            SearchSteps(layout: layout, searchList: searchList)
        }
    }

    /// `LanguageMatcher.bundleSearchList` of these arguments.
    func searchList(localizations: [String], developmentRegion: String?, preferences: [String]) -> [String] {
        searchLists.value(for: SearchListKey(localizations: localizations, developmentRegion: developmentRegion,
                                             preferences: preferences)) {
            LanguageMatcher.bundleSearchList(localizations: localizations, developmentRegion: developmentRegion,
                                             preferences: preferences)
        }
    }

    /// `LanguageMatcher.preferredLocalizations` of these arguments.
    func preferredLocalizations(from localizations: [String], preferences: [String]) -> [String] {
        preferredLists.value(for: SearchListKey(localizations: localizations, developmentRegion: nil, preferences: preferences)) {
            LanguageMatcher.preferredLocalizations(from: localizations, preferences: preferences)
        }
    }

    private struct StepsKey: SharedKey {
        let layout: BundleLayout
        let searchList: [String]
        let digest: UInt64

        init(layout: BundleLayout, searchList: [String]) {
            self.layout = layout
            self.searchList = searchList
            digest = Self.digest(of: searchList, seed: UInt64(layout.rawValue))
        }

        static func == (a: Self, b: Self) -> Bool {
            a.digest == b.digest && a.layout == b.layout && sameStrings(a.searchList, b.searchList)
        }
    }

    private struct SearchListKey: SharedKey {
        let localizations: [String]
        let developmentRegion: String?
        let preferences: [String]
        let digest: UInt64

        init(localizations: [String], developmentRegion: String?, preferences: [String]) {
            self.localizations = localizations
            self.developmentRegion = developmentRegion
            self.preferences = preferences
            var digest = Self.digest(of: localizations, seed: UInt64(localizations.count))
            if let region = developmentRegion { digest = Hashing.memory(region, seed: digest ^ 1) }
            self.digest = Self.digest(of: preferences, seed: digest)
        }

        static func == (a: Self, b: Self) -> Bool {
            a.digest == b.digest && sameStrings(a.localizations, b.localizations) && sameStrings(a.preferences, b.preferences)
                && sameRegion(a.developmentRegion, b.developmentRegion)
        }

        private static func sameRegion(_ a: String?, _ b: String?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case let (a?, b?): sameBytes(a, b)
            default: false
            }
        }
    }
}

/// A key of `SharedValues`: compared byte for byte (String equality would take a composed and
/// a decomposed spelling of one language for the same key, where the folder names they make
/// differ), with a digest that tells most keys apart in one comparison.
protocol SharedKey: Equatable, Sendable {
    var digest: UInt64 { get }
}

extension SharedKey {
    /// XXH3 over each string's bytes in turn, from `seed`.
    static func digest(of strings: [String], seed: UInt64) -> UInt64 {
        strings.reduce(seed) { Hashing.memory($1, seed: $0) }
    }

    /// Whether the two lists hold the same strings, byte for byte (`sameBytes`).
    static func sameStrings(_ a: [String], _ b: [String]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { sameBytes($0, $1) }
    }
}

/// Values made from a key, kept for the next bundle with the same key: a short list searched in
/// order, not a Dictionary. A reader sees a few keys, and a Dictionary's `Hasher` over a key
/// cost ~500 instructions per open more than this search (callgrind).
final class SharedValues<Key: SharedKey, Value: Sendable>: Sendable {
    /// At most this many; when full, it starts again empty.
    static var capacity: Int { 64 }

    private let table = Mutex<[(key: Key, value: Value)]>([])

    func value(for key: Key, _ make: () -> Value) -> Value {
        if let known = table.withLock({ table in table.first { $0.key == key }?.value }) { return known }
        let made = make()
        table.withLock { table in
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table.append((key, made))
        }
        return made
    }
}
