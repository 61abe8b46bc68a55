import Synchronization

/// The steps of a bundle's search and the folders they read for a lookup without a
/// subdirectory: the part of a `SearchPlan` that depends only on the bundle's layout and its
/// language search list. Under one context most bundles of an index share both, so a reader
/// makes each once (`SearchStepsTable`): composing the folder names and hashing them was a
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

/// A reader's `SearchSteps`, by layout and search list. The lists are compared byte for byte, as
/// the folder names they make are: String equality would take a composed and a decomposed
/// spelling of one language for the same list. Nothing in it depends on the index's contents, so
/// a commit leaves it valid.
///
/// A short list searched in order, not a Dictionary: an index under one context holds a few
/// layouts and search lists, and a Dictionary's `Hasher` over the key cost ~500 instructions per
/// open more than this search (callgrind).
final class SearchStepsTable: Sendable {
    /// At most this many; when full, it starts again empty.
    static let capacity = 64

    private let table = Mutex<[(key: Key, steps: SearchSteps)]>([])

    /// Hashed once, with XXH3 over each language's bytes, so that most entries are told apart
    /// by one comparison.
    private struct Key: Equatable {
        let layout: BundleLayout
        let searchList: [String]
        let digest: UInt64

        init(layout: BundleLayout, searchList: [String]) {
            self.layout = layout
            self.searchList = searchList
            var digest = UInt64(layout.rawValue)
            for language in searchList { digest = Hashing.memory(language, seed: digest) }
            self.digest = digest
        }

        static func == (a: Key, b: Key) -> Bool {
            a.digest == b.digest && a.layout == b.layout && a.searchList.count == b.searchList.count
                && zip(a.searchList, b.searchList).allSatisfy { sameBytes($0, $1) }
        }
    }

    func steps(layout: BundleLayout, searchList: [String]) -> SearchSteps {
        let key = Key(layout: layout, searchList: searchList)
        if let known = table.withLock({ table in table.first { $0.key == key }?.steps }) { return known }
        let made = SearchSteps(layout: layout, searchList: searchList)
        table.withLock { table in
            if table.count >= Self.capacity { table.removeAll(keepingCapacity: true) }
            table.append((key, made))
        }
        return made
    }
}
