// RatioGate — the ratio half of tools/bench-gate.
//
//   RatioGate --floors FILE [--fixtures 1k=DIR,20k=DIR] [--rounds N] [--block-ms MS] [--retry-factor K]
//
// Measures both sides of every ratio in Benchmarks/ratio-floors alternately, `--rounds` times, in
// blocks of `--block-ms` (InterleavedRun), and checks the ratio of each side's best round against
// its floor (RatioCheck.Outcome says why the best round). A check that fails is measured again, only its own cells, with K times the rounds and
// K times the block length; the gate fails only when the failure reproduces. Exit 0: every check
// holds; 1: a regression reproduced; 2: bad arguments or fixtures.
import BenchSupport
import Foundation

func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("RatioGate: \(message)\n".utf8))
    exit(code)
}

func log(_ message: String) {
    FileHandle.standardError.write(Data("RatioGate: \(message)\n".utf8))
}

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard flag.hasPrefix("--"), let value = arguments.popFirst() else {
        fail("usage: RatioGate --floors FILE [--fixtures L=DIR,...] [--rounds N] [--block-ms MS] [--retry-factor K]")
    }
    options[String(flag.dropFirst(2))] = value
}
guard let floorsPath = options["floors"] else { fail("--floors FILE is required") }
let rounds = Int(options["rounds"] ?? "11") ?? 0
let blockMilliseconds = Double(options["block-ms"] ?? "30") ?? 0
let retryFactor = Int(options["retry-factor"] ?? "3") ?? 0
guard rounds >= 3, blockMilliseconds > 0, retryFactor >= 1 else {
    fail("--rounds must be ≥ 3, --block-ms > 0, --retry-factor ≥ 1")
}
if let spec = options["fixtures"] { setenv("BUNDLEIDX_BENCH_FIXTURES", spec, 1) }
let fixtures = Fixture.fromEnvironment()
guard !fixtures.isEmpty else { fail("no fixtures (--fixtures or $BUNDLEIDX_BENCH_FIXTURES)") }

let prepared: [FixtureCells]
let checks: [RatioCheck]
do {
    prepared = try fixtures.map { try FixtureCells(fixture: $0, kinds: Fixture.kinds, log: log) }
    checks = try readFloors(path: floorsPath, fixtures: prepared)
} catch {
    fail("\(error)")
}
let cellsByName = Dictionary(uniqueKeysWithValues: prepared.flatMap(\.cells).map { ($0.name, $0) })

/// Measures the cells the given checks need, in one interleaved run.
@MainActor
func measure(_ checks: [RatioCheck], rounds: Int, blockMilliseconds: Double) -> InterleavedRun {
    var needed: [String] = []
    for name in checks.flatMap(\.cells) where !needed.contains(name) { needed.append(name) }
    var run = InterleavedRun(rounds: rounds, blockMilliseconds: blockMilliseconds)
    do {
        try run.measure(needed.map { cellsByName[$0]! })
    } catch {
        fail("a lookup failed while measuring: \(error)")
    }
    return run
}

func row(_ check: RatioCheck, _ outcome: RatioCheck.Outcome) -> String {
    let name = check.name.padding(toLength: 46, withPad: " ", startingAt: 0)
    let floor = check.bound.text.padding(toLength: 8, withPad: " ", startingAt: 0)
    let spread = String(format: "%.2f (%.2f–%.2f)", outcome.median, outcome.low, outcome.high)
    return String(format: "%@ %6.2f  %@ %@", name, outcome.gated, floor, spread.padding(toLength: 22, withPad: " ", startingAt: 0))
        + (check.bound.admits(outcome.gated) ? "  ok" : "  FAIL")
}

log("\(checks.count) checks over \(cellsByName.count) cells; \(rounds) rounds of \(blockMilliseconds) ms blocks, "
    + "cells alternated; the gate checks best round ÷ best round")
let first = measure(checks, rounds: rounds, blockMilliseconds: blockMilliseconds)
print("check                                           best÷best floor    per-round median (spread)")
var failing: [RatioCheck] = []
for check in checks {
    guard let outcome = check.evaluate(first) else { fail("no samples for \(check.name)") }
    print(row(check, outcome))
    if !check.bound.admits(outcome.gated) { failing.append(check) }
}

var reproduced: [RatioCheck] = []
if !failing.isEmpty {
    let longRounds = rounds * retryFactor, longBlock = blockMilliseconds * Double(retryFactor)
    print("retrying \(failing.count) failed check(s) with a longer run: \(longRounds) rounds of \(longBlock) ms blocks")
    let again = measure(failing, rounds: longRounds, blockMilliseconds: longBlock)
    for check in failing {
        guard let outcome = check.evaluate(again) else { fail("no samples for \(check.name)") }
        print("retried: " + row(check, outcome))
        if !check.bound.admits(outcome.gated) { reproduced.append(check) }
    }
}

if reproduced.isEmpty {
    let retried = failing.isEmpty ? "" : " (\(failing.count) passed when measured again: "
        + failing.map(\.name).joined(separator: "; ") + ")"
    print("ratio gate: all \(checks.count) checks hold\(retried)")
} else {
    for check in reproduced {
        log("ratio floor failed twice: \(check.name) (floor \(check.bound.text))")
    }
    print("ratio gate: \(reproduced.count) of \(checks.count) checks failed and failed again when measured longer")
    exit(1)
}
