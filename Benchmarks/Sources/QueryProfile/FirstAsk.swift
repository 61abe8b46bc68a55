// QueryProfile INDEX CASES.jsonl first-ask MODE — what a first ask of each ShapeMatrix cell costs
// and why (docs/performance.md, "First asks at 1M"). CASES is `ShapeMatrix prepare --out`'s file;
// only its single path lookups are asked. The bundles are opened first (not timed), then every
// lookup is asked once in the file's order, each call timed alone, per cell:
//   api     the public `path(forResource:…)` (what ShapeMatrix's first ask times)
//   engine  `pathReadingIndex` (no answer kept): the index reads and the path, nothing else
//   warm    `pathReadingIndex` twice per lookup, the second one timed: pages mapped and in cache
//   cold    `pathReadingIndex` once over all lookups (maps every page they touch), then 64 MiB
//           of other memory written (evicts CPU caches and TLB), then every lookup timed
//   api-loop  the same through `path(forResource:…)`, each round on bundles opened anew (perf)
//   loop    the top-folder search-list lookups through `pathReadingIndex` 300 times, untimed (perf)
//   open-loop  the bundles opened 300 times more, each round through a new reader, untimed (perf);
//              open-loop-apple: the same under the apple profile
//   touched    as engine, every page of the index read first (`storageUse`): opens without faults
//   warmed     as engine, the reader warmed first (`IndexReader.warmUp`, timed and reported);
//              any other mode with `+warm` after it (`tail+warm`) also warms the reader first
//   tail / tail-ordered  every path lookup once through the public API, shuffled (ShapeMatrix's
//              order) or in the file's: percentiles over all cells, the share of time above p90,
//              and the slowest asks, marked when the thread was switched out or took a fault;
//              tail-engine: shuffled, through `pathReadingIndex` (no answer looked up or kept);
//              tail-split: one shuffled pass, even case numbers as `tail`, odd ones as
//              `tail-engine`, so both halves see the same machine (mean, p50, p90 of each)
//   evicted    the top-folder search-list lookups through the public API, 48 MiB of other memory
//              written before each (every cache line and TLB entry it needs is cold), and one
//              byte of that memory read after the same writing: what a lookup costs in cold lines
// Each line: cell, lookups, mean and p50 ns, records read per lookup, minor faults per lookup.
import BenchSupport
@_spi(Engine) import BundleIndex
import Foundation

func minorFaults() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_minflt
}

func nanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func firstAsk(reader: IndexReader, casesPath: String, mode named: String) throws {
    let warm = named == "warmed" || named.hasSuffix("+warm")
    let mode = named.hasSuffix("+warm") ? String(named.dropLast(5)) : named
    let decoder = JSONDecoder()
    let cases = try String(contentsOfFile: casesPath, encoding: .utf8).split(separator: "\n")
        .map { try decoder.decode(ShapeCase.self, from: Data($0.utf8)) }
        .filter { $0.operation == .path }
    var bundles: [String: IndexedBundle] = [:]
    var openTimes: [UInt64] = []
    if mode == "touched" { _ = try reader.storageUse() }
    if warm {
        let t0 = nanoseconds()
        let bytes = try reader.warmUp()
        print(String(format: "warm-up: %.1f MiB mapped in %.2f ms", Double(bytes) / 1_048_576, Double(nanoseconds() - t0) / 1e6))
    }
    let openFaults = minorFaults()
    for path in Set(cases.map(\.bundle)).sorted() {
        let t0 = nanoseconds()
        bundles[path] = try reader.bundle(atPath: path, context: .foundationLinux)
        openTimes.append(nanoseconds() - t0)
    }
    print(String(format: "%-58@ %4d  mean %6.0f  p50 %6d  faults %.2f", "open by path" as NSString, openTimes.count,
                 Double(openTimes.reduce(0, +)) / Double(openTimes.count), openTimes.sorted()[openTimes.count / 2],
                 Double(minorFaults() - openFaults) / Double(openTimes.count)))
    if mode == "open-loop" || mode == "open-loop-apple" {
        // For perf record: the same bundles opened again and again, each round through a new
        // reader (an empty table of opened bundles) on the same environment: pages mapped.
        // `open-loop-apple` opens them under the apple profile (English, Linux).
        let paths = bundles.keys.sorted()
        let context: SearchContext = mode == "open-loop" ? .foundationLinux : .apple(languages: ["en"])
        for _ in 0..<300 {
            let again = try IndexReader(path: reader.path)
            for path in paths where try again.bundle(atPath: path, context: context) == nil { print("lost \(path)") }
        }
        print("\(paths.count * 300) opens")
        return
    }
    let asked = cases.filter { bundles[$0.bundle] != nil }
    func ask(_ c: ShapeCase, cached: Bool) throws -> Int {
        let b = bundles[c.bundle]!
        switch (c.localized, cached) {
        case (false, true): return try b.path(forResource: c.name, ofType: c.type, inDirectory: c.directory)?.utf8.count ?? 0
        case (true, true):
            return try b.path(forResource: c.name, ofType: c.type, inDirectory: c.directory,
                              forLocalization: c.localization)?.utf8.count ?? 0
        case (false, false):
            return try b.pathReadingIndex(forResource: c.name, ofType: c.type, inDirectory: c.directory)?.utf8.count ?? 0
        case (true, false):
            return try b.pathReadingIndex(forResource: c.name, ofType: c.type, inDirectory: c.directory,
                                          forLocalization: c.localization)?.utf8.count ?? 0
        }
    }
    var checksum = 0
    if mode == "cold" {
        for c in asked { checksum &+= try ask(c, cached: false) }
        var other = [UInt8](repeating: 1, count: 64 << 20)
        for i in stride(from: 0, to: other.count, by: 64) { other[i] &+= 1 }
        checksum &+= Int(other[4096])
    }
    if mode == "loop" {
        // For perf record: the engine's asks of the top-folder search-list cells, over and over.
        let top = asked.filter { $0.cell.contains("top · search list") }
        for _ in 0..<300 { for c in top { checksum &+= try ask(c, cached: false) } }
        print(checksum == 42 ? " " : "\(top.count * 300) asks")
        return
    }
    if mode == "api-loop" {
        // For perf record: first asks through the public API, each round on freshly opened
        // bundles (new plans, empty answer caches).
        let top = asked.filter { $0.cell.contains("top · search list") }
        for _ in 0..<300 {
            for (path, b) in bundles { bundles[path] = b.with(context: .foundationLinux) }
            for c in top { checksum &+= try ask(c, cached: true) }
        }
        print(checksum == 42 ? " " : "\(top.count * 300) asks")
        return
    }
    var times: [String: [UInt64]] = [:]
    var faults: [String: Int] = [:]
    if mode == "tail" || mode == "tail-ordered" || mode == "tail-engine" {
        // Every path lookup once through the public API, shuffled (as ShapeMatrix asks) or in the
        // file's order: the spread of first asks over all cells, and the slowest ones, each
        // marked when the thread was switched out (S) or took a page fault (F) during the call.
        var generator = SplitMix64(seed: 1)
        let order = mode != "tail-ordered" ? Array(asked.indices).shuffled(using: &generator) : Array(asked.indices)
        func usage() -> rusage {
            var u = rusage()
            getrusage(1 /* RUSAGE_THREAD */, &u)
            return u
        }
        var asks: [(ns: UInt64, index: Int, switched: Bool, faulted: Bool)] = []
        for n in order {
            let u0 = usage()
            let t0 = nanoseconds()
            checksum &+= try ask(asked[n], cached: mode != "tail-engine")
            let t1 = nanoseconds()
            let u1 = usage()
            asks.append((t1 - t0, n, u1.ru_nivcsw != u0.ru_nivcsw || u1.ru_nvcsw != u0.ru_nvcsw, u1.ru_minflt != u0.ru_minflt))
        }
        let sorted = asks.map(\.ns).sorted()
        let total = sorted.reduce(0, +)
        func at(_ fraction: Double) -> UInt64 { sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))] }
        let tail = sorted.filter { $0 > at(0.9) }.reduce(0, +)
        print(String(format: "%d asks  mean %llu  p50 %llu  p90 %llu  p99 %llu  max %llu  time above p90 %.0f %%  switched out %d  faulted %d",
                     sorted.count, total / UInt64(sorted.count), at(0.5), at(0.9), at(0.99), sorted.last ?? 0,
                     100 * Double(tail) / Double(total), asks.filter(\.switched).count, asks.filter(\.faulted).count))
        for a in asks.sorted(by: { $0.ns > $1.ns }).prefix(10) {
            let c = asked[a.index]
            print("\(a.ns) \(a.switched ? "S" : "-")\(a.faulted ? "F" : "-") \(c.cell) \(c.bundle) \(c.name ?? "-") \(c.type ?? "-")")
        }
        return
    }
    if mode == "tail-split" {
        // The answer cache's share of a first ask, measured without the machine's drift between
        // processes: one shuffled pass, even case numbers through the public API, odd ones
        // through `pathReadingIndex`.
        var generator = SplitMix64(seed: 1)
        var api: [UInt64] = [], engine: [UInt64] = []
        for n in Array(asked.indices).shuffled(using: &generator) {
            let t0 = nanoseconds()
            checksum &+= try ask(asked[n], cached: n % 2 == 0)
            let t = nanoseconds() - t0
            if n % 2 == 0 { api.append(t) } else { engine.append(t) }
        }
        for (name, t) in [("api", api), ("engine", engine)] {
            let s = t.sorted()
            print(name, s.count, "mean", s.reduce(0, +) / UInt64(s.count), "p50", s[s.count / 2], "p90", s[s.count * 9 / 10])
        }
        return
    }
    if mode == "evicted" {
        var other = [UInt8](repeating: 1, count: 48 << 20)
        func evict() { for i in stride(from: 0, to: other.count, by: 64) { other[i] &+= 1 } }
        let top = asked.filter { $0.cell.contains("top · search list") }
        for c in top {
            evict()
            let t0 = nanoseconds()
            checksum &+= try ask(c, cached: true)
            times[c.cell, default: []].append(nanoseconds() - t0)
        }
        for _ in top {
            evict()
            let t0 = nanoseconds()
            checksum &+= Int(other[Int(t0 & 0xFFFF) * 64])
            times["one cold byte", default: []].append(nanoseconds() - t0)
        }
    }
    for c in asked where mode != "evicted" {
        if mode == "warm" { checksum &+= try ask(c, cached: false) }
        let f0 = minorFaults()
        let t0 = nanoseconds()
        checksum &+= try ask(c, cached: mode == "api")
        let t1 = nanoseconds()
        faults[c.cell, default: 0] += minorFaults() - f0
        times[c.cell, default: []].append(t1 - t0)
    }
    var reads: [String: Int] = [:]
    for c in asked where times[c.cell] != nil {
        let b = bundles[c.bundle]!
        reads[c.cell, default: 0] += c.localized
            ? try b.storeReadCount(forResource: c.name, ofType: c.type, inDirectory: c.directory, forLocalization: c.localization)
            : try b.storeReadCount(forResource: c.name, ofType: c.type, inDirectory: c.directory)
    }
    for (cell, t) in times.sorted(by: { $0.key < $1.key }) where t.count >= 100 {
        let sorted = t.sorted()
        let mean = Double(t.reduce(0, +)) / Double(t.count)
        let readText = reads[cell].map { String(format: "%.2f", Double($0) / Double(t.count)) } ?? "-"
        print(String(format: "%-58@ %4d  mean %6.0f  p50 %6d  reads %@  faults %.2f", cell as NSString, t.count, mean,
                     sorted[t.count / 2], readText as NSString, Double(faults[cell] ?? 0) / Double(t.count)))
    }
    if checksum == 42 { print(" ") }
}
