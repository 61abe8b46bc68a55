// ShapeMatrix — every query shape on real-shaped trees, first ask and repeat ask, bundleidx next
// to Foundation (issue 10's matrix; tools/shape-bench drives it and prints the table).
//
//   ShapeMatrix prepare --index DIR --tree DIR --out FILE [--bundles N] [--per-cell N] [--seed S] [--mix FILE]
//                      [--mix-lookups N] [--differing FILE]
//       Picks N bundles of the tree (seeded), derives lookups of every shape from their files,
//       sorts them into cells by Foundation's answer, keeps those bundleidx (foundation-linux)
//       answers identically, and writes up to --per-cell of each cell to FILE (JSON lines).
//       --mix adds a tree's queries.jsonl as the cell "real mix" (every lookup of it, or
//       --mix-lookups N of them); --differing FILE keeps the lookups the two answer differently.
//   ShapeMatrix measure --side foundation|foundation-linux|apple --cases FILE [--index DIR] [--repeats R] [--seed S]
//                      [--warm-up yes]
//       In this (fresh) process: opens the bundles, asks every lookup once, then R times more;
//       prints per cell the mean and median ns of first asks and of repeat asks (JSON).
//       --warm-up yes: the index sides warm their reader first (`IndexReader.warmUp`, timed in
//       a cell of its own), as a long-lived process would; Foundation has nothing to warm.
import BenchSupport
import BundleIndex
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ShapeMatrix: \(message)\n".utf8))
    exit(2)
}

let command = CommandLine.arguments.dropFirst().first ?? ""
let options: [String: String] = {
    var parsed: [String: String] = [:]
    var rest = CommandLine.arguments.dropFirst(2)
    while let flag = rest.popFirst() {
        guard flag.hasPrefix("--"), let value = rest.popFirst() else { fail("options come as --name value pairs") }
        parsed[String(flag.dropFirst(2))] = value
    }
    return parsed
}()
func option(_ name: String) -> String {
    guard let value = options[name] else { fail("--\(name) is required") }
    return value
}
func integer(_ name: String, _ fallback: Int) -> Int {
    guard let text = options[name] else { return fallback }
    guard let value = Int(text), value >= 0 else { fail("--\(name) takes a number") }
    return value
}

func prepare() throws {
    let reader = try IndexReader(path: option("index"))
    let tree = URL(fileURLWithPath: option("tree")).standardizedFileURL.path
    var planner = ShapePlanner(perCell: integer("per-cell", 200), mixLookups: integer("mix-lookups", .max),
                               seed: UInt64(integer("seed", 1)))
    var bundles = try reader.bundles(under: tree, context: .foundationLinux).map(\.bundlePath)
    bundles.shuffle(using: &planner.generator)
    bundles = Array(bundles.prefix(integer("bundles", 400)))
    let foundation = FoundationSide()
    let indexed = IndexSide(reader: reader, context: .foundationLinux)
    var all: [ShapeCase] = []
    var differing: [String: Int] = [:]
    var differingText = ""
    var candidates: [(ShapeCase, Bundle, IndexedBundle)] = []
    for path in bundles {
        guard let bundle = Bundle(path: path), let mine = try indexed.open(path) else { continue }
        for lookup in planner.candidates(bundle: bundle, bundlePath: path) { candidates.append((lookup, bundle, mine)) }
    }
    if let mix = options["mix"] {
        for line in try String(contentsOfFile: mix, encoding: .utf8).split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let path = object["bundle"] as? String, let bundle = Bundle(path: path),
                  let mine = try indexed.open(path) else { continue }
            let localized = object.keys.contains("loc")
            let lookup = ShapeCase(cell: ShapePlanner.mixCell, bundle: path, operation: object["op"] as? String == "paths" ? .paths : .path,
                                   name: object["name"] as? String, type: object["type"] as? String,
                                   directory: object["dir"] as? String, localized: localized,
                                   localization: object["loc"] as? String)
            candidates.append((lookup, bundle, mine))
        }
    }
    for (var lookup, bundle, mine) in candidates {
        let agree: Bool
        switch lookup.operation {
        case .path:
            let answer = foundation.path(lookup, in: bundle)
            agree = try answer == indexed.path(lookup, in: mine)
            if lookup.cell != ShapePlanner.mixCell { lookup.cell = ShapePlanner.cell(of: lookup, answer: answer) }
        case .paths:
            agree = try foundation.paths(lookup, in: bundle).sorted() == indexed.paths(lookup, in: mine).sorted()
            if lookup.cell == "paths" { lookup.cell = lookup.localized ? "paths · forLocalization" : "paths · search list" }
        case .info, .localizations, .preferredLocalizations:
            agree = try foundation.answer(lookup, in: bundle) == indexed.answer(lookup, in: mine)
        }
        if agree {
            all.append(lookup)
        } else {
            differing[lookup.cell, default: 0] += 1
            differingText += String(decoding: try JSONEncoder().encode(lookup), as: UTF8.self) + "\n"
        }
    }
    let sampled = planner.sample(all)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var text = ""
    for lookup in sampled { text += String(decoding: try encoder.encode(lookup), as: UTF8.self) + "\n" }
    try text.write(toFile: option("out"), atomically: false, encoding: .utf8)
    if let path = options["differing"] { try differingText.write(toFile: path, atomically: false, encoding: .utf8) }
    var counts: [String: Int] = [:]
    for lookup in sampled { counts[lookup.cell, default: 0] += 1 }
    let summary: [String: Any] = ["bundles": bundles.count, "candidates": candidates.count, "agreeing": all.count,
                                  "cells": counts, "differing": differing]
    let json = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys])
    print(String(decoding: json, as: UTF8.self))
}

func measure() throws {
    let decoder = JSONDecoder()
    let lookups = try String(contentsOfFile: option("cases"), encoding: .utf8).split(separator: "\n")
        .map { try decoder.decode(ShapeCase.self, from: Data($0.utf8)) }
    let repeats = integer("repeats", 5)
    let seed = UInt64(integer("seed", 1))
    var times: [String: CellTimes]
    switch option("side") {
    case "foundation":
        times = try Measurement(side: FoundationSide(), lookups: lookups, repeats: repeats, seed: seed).run()
    case let profile:
        guard let parsed = SearchContext.Profile(rawValue: profile) else { fail("unknown side \(profile)") }
        let reader = try IndexReader(path: option("index"))
        let context: SearchContext = parsed == .apple ? .apple(languages: ["en"]) : .foundationLinux
        var warmUp: Double?
        if options["warm-up"] == "yes" {
            let start = monotonicNanoseconds()
            try reader.warmUp()
            warmUp = Double(monotonicNanoseconds() - start)
        }
        times = try Measurement(side: IndexSide(reader: reader, context: context), lookups: lookups,
                                repeats: repeats, seed: seed).run()
        if let warmUp { times[Measurement<IndexSide>.warmUpCell] = CellTimes(first: [warmUp], repeated: [warmUp]) }
        // By identifier: only the index can open an unloaded bundle that way.
        var identifiers: [String] = []
        for path in Set(lookups.map(\.bundle)).sorted() {
            if let id = try reader.bundle(atPath: path, context: context)?.bundleIdentifier { identifiers.append(id) }
        }
        for pass in 0..<2 {
            for id in identifiers {
                let start = monotonicNanoseconds()
                _ = try reader.bundle(identifier: id, context: context)
                let elapsed = Double(monotonicNanoseconds() - start)
                if pass == 0 { times["open by identifier", default: CellTimes()].first.append(elapsed) }
                else { times["open by identifier", default: CellTimes()].repeated.append(elapsed) }
            }
        }
    }
    var out: [String: Any] = [:]
    for (cell, cellTimes) in times {
        out[cell] = ["n": cellTimes.first.count,
                     "first_mean": mean(cellTimes.first), "first_p50": median(cellTimes.first),
                     "repeat_mean": mean(cellTimes.repeated), "repeat_p50": median(cellTimes.repeated)]
    }
    let json = try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys])
    print(String(decoding: json, as: UTF8.self))
}

func mean(_ values: [Double]) -> Double { values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count) }
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

do {
    switch command {
    case "prepare": try prepare()
    case "measure": try measure()
    default: fail("unknown command \(command): prepare or measure")
    }
} catch {
    fail("\(error)")
}
