import BenchSupport
import Benchmark
import BundleIndex
import Foundation

/// Build throughput next to `find ROOT -type f` over the same tree, both with a warm dentry
/// and page cache (the warmup iteration walks the tree first).
func registerBuild(fixture: Fixture) {
    // maxDuration must fit the warmup and a few builds of the largest tree (1M: ~9 s each);
    // with 20 s the 1M row came out empty.
    let config = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .peakMemoryResident], timeUnits: .milliseconds,
        warmupIterations: 1, maxDuration: .seconds(120), maxIterations: 5)
    let scratch = NSTemporaryDirectory() + "bundleidx-bench-build-\(getpid())"
    Benchmark("\(fixture.label) build", configuration: config) { benchmark in
        try? FileManager.default.removeItem(atPath: scratch)
        benchmark.startMeasurement()
        let summary = try IndexBuilder.build(roots: [fixture.tree], indexPath: scratch)
        benchmark.stopMeasurement()
        blackHole(summary.resources)
    } teardown: {
        try? FileManager.default.removeItem(atPath: scratch)
    }
    Benchmark("\(fixture.label) find", configuration: config) { _ in
        blackHole(runProcess(["/usr/bin/find", fixture.tree, "-type", "f"]))
    }
}

/// A fresh `bundleidx query` process next to the two smallest Swift programs built the same way
/// (`swift build -c release` in Benchmarks/, static Swift runtime and Foundation like the release
/// CLI): one printing hello, one making a single Foundation call. Their difference is what
/// bundleidx itself costs at startup.
func registerProcesses(fixture: Fixture) {
    let config = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], timeUnits: .microseconds,
        warmupIterations: 3, maxDuration: .seconds(5), maxIterations: 300)
    let products = productsDirectory()
    guard let query = fixture.queries(ofKind: "global").first, let name = query.name else { return }
    var queryCommand = [products + "/bundleidx", "query", "--index", fixture.index, "--profile", "foundation-linux",
                        query.bundle, name]
    if let type = query.type { queryCommand += ["--type", type] }
    if let dir = query.directory { queryCommand += ["--dir", dir] }
    let commands = [
        ("process bundleidx query", queryCommand),
        ("process hello-world", [products + "/HelloWorld"]),
        ("process Foundation-only", [products + "/FoundationOnly"]),
    ]
    for (name, command) in commands {
        Benchmark(name, configuration: config) { benchmark in
            blackHole(runProcess(command))
        } setup: {
            // A command that fails would time an error path: refuse to measure it.
            let status = runProcess(command)
            if status != 0 { throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: command.joined(separator: " ")]) }
        }
    }
}
