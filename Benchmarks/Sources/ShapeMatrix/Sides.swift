import BenchSupport
import BundleIndex
import Foundation

/// What a measured side can do: open a bundle, answer one lookup. Answers are reduced to an
/// integer (a path's length, a list's size) so that the work cannot be optimised away and the
/// two sides can be compared cheaply.
protocol Side {
    associatedtype Handle
    func open(_ path: String) throws -> Handle?
    func answer(_ lookup: ShapeCase, in handle: Handle) throws -> Int
}

/// Foundation's `Bundle`.
struct FoundationSide: Side {
    func open(_ path: String) -> Bundle? { Bundle(path: path) }

    func answer(_ lookup: ShapeCase, in bundle: Bundle) -> Int {
        switch lookup.operation {
        case .path:
            return path(lookup, in: bundle)?.utf8.count ?? 0
        case .paths:
            return paths(lookup, in: bundle).count
        case .info:
            return bundle.object(forInfoDictionaryKey: lookup.name ?? "") == nil ? 0 : 1
        case .localizations:
            return bundle.localizations.count
        case .preferredLocalizations:
            return bundle.preferredLocalizations.count
        }
    }

    func path(_ lookup: ShapeCase, in bundle: Bundle) -> String? {
        lookup.localized
            ? bundle.path(forResource: lookup.name, ofType: lookup.type, inDirectory: lookup.directory,
                          forLocalization: lookup.localization)
            : bundle.path(forResource: lookup.name, ofType: lookup.type, inDirectory: lookup.directory)
    }

    func paths(_ lookup: ShapeCase, in bundle: Bundle) -> [String] {
        lookup.localized
            ? bundle.paths(forResourcesOfType: lookup.type, inDirectory: lookup.directory, forLocalization: lookup.localization)
            : bundle.paths(forResourcesOfType: lookup.type, inDirectory: lookup.directory)
    }
}

/// bundleidx's `IndexedBundle` under one profile.
struct IndexSide: Side {
    let reader: IndexReader
    let context: SearchContext

    func open(_ path: String) throws -> IndexedBundle? { try reader.bundle(atPath: path, context: context) }

    func answer(_ lookup: ShapeCase, in bundle: IndexedBundle) throws -> Int {
        switch lookup.operation {
        case .path:
            return try path(lookup, in: bundle)?.utf8.count ?? 0
        case .paths:
            return try paths(lookup, in: bundle).count
        case .info:
            return try bundle.object(forInfoDictionaryKey: lookup.name ?? "") == nil ? 0 : 1
        case .localizations:
            return bundle.localizations.count
        case .preferredLocalizations:
            return bundle.preferredLocalizations.count
        }
    }

    func path(_ lookup: ShapeCase, in bundle: IndexedBundle) throws -> String? {
        lookup.localized
            ? try bundle.path(forResource: lookup.name, ofType: lookup.type, inDirectory: lookup.directory,
                              forLocalization: lookup.localization)
            : try bundle.path(forResource: lookup.name, ofType: lookup.type, inDirectory: lookup.directory)
    }

    func paths(_ lookup: ShapeCase, in bundle: IndexedBundle) throws -> [String] {
        lookup.localized
            ? try bundle.paths(forResourcesOfType: lookup.type, inDirectory: lookup.directory,
                               forLocalization: lookup.localization)
            : try bundle.paths(forResourcesOfType: lookup.type, inDirectory: lookup.directory)
    }
}

/// Nanoseconds since an arbitrary start (CLOCK_MONOTONIC; a vDSO call, tens of nanoseconds).
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Times of one cell: every timed call, first asks and repeat asks apart.
struct CellTimes {
    var first: [Double] = []
    var repeated: [Double] = []
}

/// Runs one side over the lookups in a fresh process: opens each bundle once (timed: "open by
/// path", and apart from those the bundles only the real mix names), asks every lookup once in a
/// shuffled order (timed one by one: "first ask"), then asks them all `repeats` times more
/// ("repeat ask"). Each call is timed alone, minus the timer's own cost, so cells can be told
/// apart although they are interleaved.
struct Measurement<S: Side> {
    /// Opening the bundles the matrix's cells ask of (sampled by `--bundles`).
    static var openCell: String { "open by path" }
    /// Opening the bundles only the real mix asks of.
    static var openMixCell: String { "open by path · other bundles of the real mix" }
    /// `IndexReader.warmUp` before anything else (`measure --warm-up yes`), once per process.
    static var warmUpCell: String { "warm-up of the reader (once)" }

    let side: S
    let lookups: [ShapeCase]
    let repeats: Int
    var seed: UInt64

    func run() throws -> [String: CellTimes] {
        let overhead = timerOverhead()
        var times: [String: CellTimes] = [:]
        var handles: [String: S.Handle] = [:]
        var checksum = 0
        // The sampled bundles first, then those only the real mix names (at 1M, thousands of
        // them): opened together, the mix's bundles would spread the cost of mapping the index's
        // pages over many opens and make the sampled ones' opens look cheaper than they are.
        let sampled = Set(lookups.lazy.filter { $0.cell != ShapePlanner.mixCell }.map(\.bundle))
        let others = Set(lookups.map(\.bundle)).subtracting(sampled)
        let groups = [(Self.openCell, sampled.sorted()), (Self.openMixCell, others.sorted())]
        for (cell, paths) in groups {
            for path in paths {
                let start = monotonicNanoseconds()
                let handle = try side.open(path)
                let elapsed = Double(monotonicNanoseconds() - start) - overhead
                times[cell, default: CellTimes()].first.append(elapsed)
                if let handle { handles[path] = handle }
            }
        }
        for (cell, paths) in groups {
            for path in paths where handles[path] != nil {
                let start = monotonicNanoseconds()
                checksum &+= try side.open(path) == nil ? 0 : 1
                times[cell, default: CellTimes()].repeated.append(Double(monotonicNanoseconds() - start) - overhead)
            }
        }
        var generator = SplitMix64(seed: seed)
        let order = lookups.indices.filter { handles[lookups[$0].bundle] != nil }.shuffled(using: &generator)
        for pass in 0...repeats {
            for i in order {
                let lookup = lookups[i]
                let handle = handles[lookup.bundle]!
                let start = monotonicNanoseconds()
                checksum &+= try side.answer(lookup, in: handle)
                let elapsed = Double(monotonicNanoseconds() - start) - overhead
                if pass == 0 {
                    times[lookup.cell, default: CellTimes()].first.append(elapsed)
                } else {
                    times[lookup.cell, default: CellTimes()].repeated.append(elapsed)
                }
            }
        }
        if checksum == 42 { FileHandle.standardError.write(Data(" ".utf8)) }
        return times
    }

    /// The least time two back-to-back clock reads take, subtracted from every sample.
    private func timerOverhead() -> Double {
        var least = UInt64.max
        for _ in 0..<10_000 {
            let a = monotonicNanoseconds()
            let b = monotonicNanoseconds()
            least = min(least, b - a)
        }
        return Double(least)
    }
}
