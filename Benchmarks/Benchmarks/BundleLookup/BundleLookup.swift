import BenchSupport
import Benchmark
import BundleIndex
import Foundation

// Benchmarks for docs/performance.md and the CI gate (tools/bench-report, tools/bench-gate).
// Fixtures come from tools/bench-fixture through $BUNDLEIDX_BENCH_FIXTURES ("1k=DIR,100k=DIR");
// names are "<fixture> <what> <who>", so scripts pick groups with --filter.
//
// Timing benchmarks carry no thresholds: this machine is shared and noisy, and the gate checks
// only ratios measured in one run. The "gate" benchmarks measure deterministic metrics (store
// reads, mallocs) over a fixed number of iterations; their p90 thresholds are in Thresholds/.

/// Records a bundleidx lookup reads from the index (IndexedBundle.storeReadCount).
/// Default polarity and scaling: the static-threshold reader parses custom metrics with those.
let storeReads = BenchmarkMetric.custom("storeReads")

/// The profiles benchmarked: foundation-linux gives Foundation's answers (so the comparison is
/// like for like); apple on an iPad exercises device variants and a longer search list.
let profiles: [(suffix: String, context: SearchContext)] = [
    ("", .foundationLinux),
    (" apple", .apple(languages: ["en"], platform: .ios, device: .ipad)),
]

let benchmarks: @Sendable () -> Void = {
    let seconds = Int(ProcessInfo.processInfo.environment["BUNDLEIDX_BENCH_SECONDS"] ?? "") ?? 2
    let timing = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .nanoseconds,
        warmupIterations: 200, maxDuration: .seconds(seconds), maxIterations: .kilo(500))
    // A fixed iteration count over a fixed query sequence: the same run every time, so the
    // thresholds can be exact. Reads must not grow at all; a malloc more fails too.
    let gate = Benchmark.Configuration(
        // .throughput only because the JMH export (tools/bench-report) requires it; the
        // checked-in thresholds keep mallocs and reads alone.
        metrics: [.mallocCountTotal, storeReads, .throughput], warmupIterations: 20, maxDuration: .seconds(120),
        maxIterations: 300,
        thresholds: [.mallocCountTotal: .init(absolute: [.p50: 0, .p90: 0]),
                     storeReads: .init(absolute: [.p50: 0, .p90: 0])])

    let fixtures = Fixture.fromEnvironment()
    for fixture in fixtures {
        for kind in Fixture.kinds {
            registerQueries(fixture: fixture, kind: kind, timing: timing, gate: gate)
        }
        registerFloor(fixture: fixture, timing: timing)
        registerBuild(fixture: fixture)
    }
    if let first = fixtures.first {
        registerProcesses(fixture: first)
    }
}

func registerQueries(fixture: Fixture, kind: String, timing: Benchmark.Configuration, gate: Benchmark.Configuration) {
    let prefix = "\(fixture.label) \(kind)"
    for (suffix, context) in profiles {
        let cases = QueryCases(fixture: fixture, kind: kind, context: context)
        Benchmark("\(prefix) bundleidx\(suffix)", configuration: timing) { benchmark in
            blackHole(try cases.indexedLookup(benchmark.currentIteration))
        } setup: {
            try cases.prepareIndexed()
        }
        // No spaces: package-benchmark writes threshold files with "_" for " " but reads them by
        // the plain name, so a name with spaces never finds its thresholds. forLocalization:
        // lookups have no gate thresholds yet (their read counts are not exposed).
        if kind != "localized" {
            registerGate("gate-\(fixture.label)-\(kind)\(suffix.replacingOccurrences(of: " ", with: "-"))", gate, cases,
                         { try cases.indexedLookup($0) })
        }
    }
    if kind != "paths" && kind != "localized" {
        // The allocation-free API: the path's bytes instead of a String.
        let cases = QueryCases(fixture: fixture, kind: kind, context: .foundationLinux)
        Benchmark("\(prefix) bundleidx withPath", configuration: timing) { benchmark in
            blackHole(try cases.indexedLookupBytes(benchmark.currentIteration))
        } setup: {
            try cases.prepareIndexed()
        }
        registerGate("gate-\(fixture.label)-\(kind)-withPath", gate, cases, cases.indexedLookupBytes)
    }
    let cases = QueryCases(fixture: fixture, kind: kind, context: .foundationLinux)
    Benchmark("\(prefix) Foundation warm", configuration: timing) { benchmark in
        blackHole(cases.foundationLookup(benchmark.currentIteration))
    } setup: {
        let differing = try cases.mismatches()
        if differing > 0 {
            FileHandle.standardError.write(Data("\(prefix): \(differing) of \(cases.count) answers differ from Foundation\n".utf8))
        }
        // Warm: every Bundle has answered each of its lookups once.
        for i in 0..<cases.count { blackHole(cases.foundationLookup(i)) }
    }
    Benchmark("\(prefix) Foundation fresh", configuration: timing) { benchmark in
        blackHole(cases.freshFoundationLookup(benchmark.currentIteration))
    }
}

/// A deterministic-metrics benchmark: mallocs of `lookup` alone, and the store reads of each case.
func registerGate(_ name: String, _ gate: Benchmark.Configuration, _ cases: QueryCases,
                  _ lookup: @escaping @Sendable (Int) throws -> Int) {
    Benchmark(name, configuration: gate) { benchmark in
        let i = benchmark.currentIteration
        benchmark.startMeasurement()
        let answer = try lookup(i)
        benchmark.stopMeasurement()
        blackHole(answer)
        if let reads = cases.reads { benchmark.measurement(storeReads, reads[i % reads.count]) }
    } setup: {
        try cases.prepareIndexed()
    }
}

func registerFloor(fixture: Fixture, timing: Benchmark.Configuration) {
    let box = RawIndexBox(path: fixture.index)
    Benchmark("\(fixture.label) floor mdb-get", configuration: timing) { benchmark in
        blackHole(box.raw!.get(benchmark.currentIteration % box.raw!.keys.count))
    } setup: {
        try box.open()
    }
    Benchmark("\(fixture.label) floor txn+mdb-get", configuration: timing) { benchmark in
        blackHole(box.raw!.getInOwnTransaction(benchmark.currentIteration % box.raw!.keys.count))
    } setup: {
        try box.open()
    }
}

/// Opens the raw index in the setup hook (a cursor walk over every key: not to be timed).
final class RawIndexBox: @unchecked Sendable {
    let path: String
    var raw: RawIndex?
    init(path: String) { self.path = path }
    func open() throws {
        guard raw == nil else { return }
        guard let r = RawIndex(path: path), !r.keys.isEmpty else { throw CocoaError(.fileReadUnknown) }
        raw = r
    }
}
