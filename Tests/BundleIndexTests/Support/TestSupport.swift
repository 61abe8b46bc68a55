// Small helpers shared by the test target: where the package lives, scratch directories, and
// running external commands (used by ConformanceTests to call tools/conformance/prepare.sh).
import Foundation
import Testing

extension Tag {
    /// Suites that take tens of seconds (the differential oracle, the watcher and its storm).
    @Tag static var slow: Self
}

enum TestPlan {
    /// False when `BUNDLEIDX_QUICK_TESTS=1` (what `tools/test.sh --quick` sets): the `.slow`
    /// suites are then skipped, for an inner loop under a minute. `tools/test.sh` and CI run all.
    static let runsSlowSuites = ProcessInfo.processInfo.environment["BUNDLEIDX_QUICK_TESTS"] != "1"
}

/// Absolute path of the package root: the nearest ancestor of this source file holding Package.swift.
let packageRoot: String = {
    let fm = FileManager.default
    var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while dir.path != "/" {
        if fm.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
            return dir.path
        }
        dir = dir.deletingLastPathComponent()
    }
    preconditionFailure("no Package.swift above \(#filePath)")
}()

/// Creates a new, empty directory under the system temporary directory and returns its path.
/// The caller removes it when done.
func makeTempDirectory(prefix: String) -> String {
    let base = FileManager.default.temporaryDirectory.path
    let path = base + "/" + prefix + "-" + UUID().uuidString
    do {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    } catch {
        preconditionFailure("cannot create temporary directory \(path): \(error)")
    }
    return path
}

/// Runs `argv` (argv[0] is looked up in PATH through /usr/bin/env) and waits for it.
/// stdout/stderr are captured through files rather than pipes, so a chatty child can never block
/// on a full pipe buffer. A child killed by a signal reports status 128 + signal, like a shell.
@discardableResult
func run(_ argv: [String], cwd: String? = nil, input: String? = nil,
         environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
    precondition(!argv.isEmpty, "run: empty argv")
    let scratch = makeTempDirectory(prefix: "run")
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    let outPath = scratch + "/stdout", errPath = scratch + "/stderr"
    for path in [outPath, errPath] {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))

    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = argv
    if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
    if let input {
        let inPath = scratch + "/stdin"
        FileManager.default.createFile(atPath: inPath, contents: Data(input.utf8))
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
    } else {
        process.standardInput = FileHandle.nullDevice
    }
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    }
    process.standardOutput = out
    process.standardError = err
    try process.run()
    process.waitUntilExit()
    try out.close()
    try err.close()

    let read = { (p: String) in
        String(decoding: FileManager.default.contents(atPath: p) ?? Data(), as: UTF8.self)
    }
    let status = process.terminationReason == .uncaughtSignal
        ? 128 + process.terminationStatus : process.terminationStatus
    return (status, read(outPath), read(errPath))
}

/// SplitMix64: a seeded storm or tree is the same on every run.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
    mutating func pick<T>(_ a: [T]) -> T? { a.isEmpty ? nil : a[below(a.count)] }
}

/// A differential run: `count` inputs made by `make` from a seeded generator, each given to
/// `check`, which says whether the narrow reader decided it and whether it then agrees with the
/// library it stands in for. How many were decided, and the first ten that disagree (in hex).
func differentialRun(count: Int, seed: UInt64, make: (inout SeededRandom) -> [UInt8],
                     check: ([UInt8]) -> (decided: Bool, agrees: Bool)) -> (decided: Int, differing: [String]) {
    var random = SeededRandom(state: seed)
    var decided = 0, differing: [String] = []
    for _ in 0..<count {
        let bytes = make(&random)
        let (wasDecided, agrees) = check(bytes)
        if wasDecided { decided += 1 }
        if !agrees && differing.count < 10 { differing.append(bytes.map { String($0, radix: 16) }.joined(separator: " ")) }
    }
    return (decided, differing)
}

/// Waits until every change made so far is older than a scan that begins now by more than a
/// clock tick: an incremental build and a watcher's catch-up trust only such stamps
/// (`FileStamp.isSettled`), and the change times they hold cannot be set back.
func waitUntilSettled() {
    let tick = 50_000_000
    usleep(useconds_t(tick / 1000 + 10_000))
}

/// `bundleidx watch root --index index` run through `prlimit --nofile=openFiles` ("soft:hard";
/// prlimit execs it, so the process is the watcher), its stderr dropped, once it answers a
/// sync. The caller stops it: `interrupt()`, then `waitUntilExit()`.
func startLimitedWatcher(root: String, index: String, openFiles: String) throws -> Process {
    let watcher = Process()
    watcher.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
    watcher.arguments = ["--nofile=" + openFiles, bundleidxBinary, "watch", root, "--index", index]
    watcher.standardError = FileHandle.nullDevice
    try watcher.run()
    var live = false
    for _ in 0..<100 where !live { live = (try? run([bundleidxBinary, "sync", root, "--timeout", "1"]).status) == 0 }
    #expect(live, "the watcher answers sync")
    return watcher
}
