import Foundation

/// One floor of Benchmarks/ratio-floors applied to one fixture (or, for scaling, to the largest
/// and smallest fixture): numerator cell ÷ (denominator cell × scale) must stay on the right side
/// of `bound`.
struct RatioCheck {
    enum Bound {
        case atLeast(Double)
        case atMost(Double)

        func admits(_ value: Double) -> Bool {
            switch self {
            case .atLeast(let minimum): value >= minimum
            case .atMost(let maximum): value <= maximum
            }
        }

        var text: String {
            switch self {
            case .atLeast(let minimum): "≥ \(minimum)"
            case .atMost(let maximum): "≤ \(maximum)"
            }
        }
    }

    let name: String
    let numerator: String
    let denominator: String
    /// Multiplies the denominator: store reads per lookup for the raw-floor ratio, else 1.
    let scale: Double
    let bound: Bound

    var cells: [String] { [numerator, denominator] }

    /// The ratio of each side's best (fastest) round, which the gate checks, and the ratios of
    /// the single rounds: their median and spread.
    ///
    /// A neighbour on a shared machine only ever slows a round down, so each side's fastest round
    /// is its least disturbed one. Measured on this project's 2-core machines (docs/performance.md,
    /// "The CI gate"): over 10 idle gate runs best ÷ best moved by 3–15 % per check (median 7 %);
    /// over 5 runs with a CPU-bound process on one core by 2–54 %, the most on the 1k checks
    /// against the raw mdb_get floor (a ~0.1 µs cell, the most exposed to interference). Three
    /// direct runs under the same load moved best ÷ best by under 5 % and the per-round medians
    /// by up to 30 %. The floors sit ~30 % below the values measured, and a failed check is
    /// measured again before the gate fails.
    struct Outcome {
        let bestOverBest: Double
        let median: Double
        let low: Double
        let high: Double
        let rounds: Int

        /// The value compared with the floor.
        var gated: Double { bestOverBest }
    }

    func evaluate(_ run: InterleavedRun) -> Outcome? {
        guard let top = run.samples[numerator], let bottom = run.samples[denominator],
              top.count == bottom.count, !top.isEmpty else { return nil }
        let perRound = zip(top, bottom).map { $0 / ($1 * scale) }.sorted()
        let middle = perRound.count / 2
        let median = perRound.count % 2 == 1 ? perRound[middle] : (perRound[middle - 1] + perRound[middle]) / 2
        return Outcome(bestOverBest: top.min()! / (bottom.min()! * scale), median: median, low: perRound.first!,
                       high: perRound.last!, rounds: perRound.count)
    }
}

/// Reads Benchmarks/ratio-floors into checks over the given fixtures (smallest first).
///
///     foundation-over-bundleidx KIND MIN [FIXTURE]   Foundation warm ÷ bundleidx ≥ MIN
///     foundation-over-repeat KIND MIN [FIXTURE]      Foundation warm ÷ bundleidx's repeat ask ≥ MIN
///     bundleidx-over-floor KIND MAX [FIXTURE]        bundleidx ÷ (reads × raw mdb_get) ≤ MAX
///     scaling KIND MAX                               largest fixture's bundleidx ÷ smallest's ≤ MAX
///
/// Without FIXTURE (a label such as `1k`) a line applies to every fixture.
func readFloors(path: String, fixtures allFixtures: [FixtureCells]) throws -> [RatioCheck] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        throw GateError("cannot read the floors file \(path)")
    }
    var checks: [RatioCheck] = []
    for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let words = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
            .split(separator: " ").map(String.init)
        if words.isEmpty { continue }
        guard words.count == 3 || words.count == 4, let bound = Double(words[2]) else {
            throw GateError("\(path):\(number + 1): expected `WHAT KIND NUMBER [FIXTURE]`, got `\(rawLine)`")
        }
        let (what, kind) = (words[0], words[1])
        let only = words.count == 4 ? words[3] : nil
        let fixtures = allFixtures.filter { only == nil || $0.label == only }
        switch what {
        case "foundation-over-bundleidx":
            for f in fixtures where f.has(kind) {
                checks.append(RatioCheck(name: "\(f.label) \(kind) Foundation ÷ bundleidx",
                                         numerator: "\(f.label) \(kind) Foundation",
                                         denominator: "\(f.label) \(kind) bundleidx", scale: 1, bound: .atLeast(bound)))
            }
        case "foundation-over-repeat":
            for f in fixtures where f.hasCell("\(f.label) \(kind) bundleidx repeat") {
                checks.append(RatioCheck(name: "\(f.label) \(kind) Foundation ÷ bundleidx repeat",
                                         numerator: "\(f.label) \(kind) Foundation",
                                         denominator: "\(f.label) \(kind) bundleidx repeat", scale: 1, bound: .atLeast(bound)))
            }
        case "bundleidx-over-floor":
            for f in fixtures where f.has(kind) {
                guard let reads = f.readsPerLookup[kind] else {
                    throw GateError("\(path):\(number + 1): no read count for \(kind) lookups")
                }
                checks.append(RatioCheck(name: String(format: "%@ %@ bundleidx ÷ (%.1f reads × mdb_get)", f.label, kind, reads),
                                         numerator: "\(f.label) \(kind) bundleidx",
                                         denominator: "\(f.label) floor", scale: reads, bound: .atMost(bound)))
            }
        case "scaling":
            guard let small = allFixtures.first, let large = allFixtures.last, allFixtures.count > 1,
                  small.has(kind), large.has(kind) else { continue }
            checks.append(RatioCheck(name: "\(kind) bundleidx \(large.label) ÷ \(small.label)",
                                     numerator: "\(large.label) \(kind) bundleidx",
                                     denominator: "\(small.label) \(kind) bundleidx", scale: 1, bound: .atMost(bound)))
        default:
            throw GateError("\(path):\(number + 1): unknown floor `\(what)`")
        }
    }
    return checks
}

extension FixtureCells {
    func has(_ kind: String) -> Bool { hasCell("\(label) \(kind) bundleidx") }
    func hasCell(_ name: String) -> Bool { cells.contains { $0.name == name } }
}
