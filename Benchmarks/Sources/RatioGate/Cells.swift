import BenchSupport
import BundleIndex
import Foundation

/// One side of a ratio: a loop of lookups that can be timed in blocks. `run(cycles)` makes every
/// lookup of the cell `cycles` times and returns a checksum, so the work cannot be optimised away.
struct Cell {
    /// "<fixture> <kind> bundleidx" (read from the index), "<fixture> <kind> bundleidx repeat"
    /// (the public API: repeat asks from memory), "<fixture> <kind> Foundation" or "<fixture> floor".
    let name: String
    /// Lookups in one cycle.
    let cycle: Int
    let run: (_ cycles: Int) throws -> Int
}

/// The cells of one fixture and the facts the checks need besides times.
struct FixtureCells {
    let label: String
    /// Mean store reads per lookup of each kind (the raw-floor ratio multiplies by it); absent
    /// for `paths`, whose listing reads the library does not count.
    var readsPerLookup: [String: Double] = [:]
    var cells: [Cell] = []

    /// Opens the fixture's index and Foundation bundles, checks that both answer alike and warms
    /// every case once on both sides: nothing of this is timed.
    init(fixture: Fixture, kinds: [String], log: (String) -> Void) throws {
        label = fixture.label
        for kind in kinds {
            // Every timed block makes whole cycles of these lookups on both sides of a ratio, so
            // each round compares the same work. Foundation lists a bundle's resources in
            // milliseconds, so `paths` keeps a short cycle.
            let cases = QueryCases(fixture: fixture, kind: kind, context: .foundationLinux, limit: kind == "paths" ? 16 : 256)
            try cases.prepareIndexed()
            guard cases.count > 0 else { continue }
            let differing = try cases.mismatches()
            if differing > 0 {
                log("\(label) \(kind): \(differing) of \(cases.count) answers differ from Foundation")
            }
            if let reads = cases.reads {
                readsPerLookup[kind] = Double(reads.reduce(0, +)) / Double(reads.count)
            }
            for i in 0..<cases.count {
                _ = try cases.indexedLookup(i)
                _ = cases.foundationLookup(i)
            }
            cells.append(Cell(name: "\(label) \(kind) bundleidx", cycle: cases.count) { cycles in
                var sum = 0
                for i in 0..<(cycles * cases.count) { sum &+= try cases.indexedLookup(i) }
                return sum
            })
            if kind != "paths" {
                // The public API, whose repeat asks are answered from memory until the next commit.
                cells.append(Cell(name: "\(label) \(kind) bundleidx repeat", cycle: cases.count) { cycles in
                    var sum = 0
                    for i in 0..<(cycles * cases.count) { sum &+= try cases.indexedLookup(i, repeatAsk: true) }
                    return sum
                })
            }
            cells.append(Cell(name: "\(label) \(kind) Foundation", cycle: cases.count) { cycles in
                var sum = 0
                for i in 0..<(cycles * cases.count) { sum &+= cases.foundationLookup(i) }
                return sum
            })
        }
        guard let raw = RawIndex(path: fixture.index), !raw.keys.isEmpty else {
            throw GateError("cannot read the raw index of fixture \(label) at \(fixture.index)")
        }
        let keyCount = raw.keys.count
        cells.append(Cell(name: "\(label) floor", cycle: keyCount) { cycles in
            var sum = 0
            for i in 0..<(cycles * keyCount) { sum &+= raw.get(i % keyCount) }
            return sum
        })
    }
}

struct GateError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
