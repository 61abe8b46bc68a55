// QueryProfile INDEX QUERIES.jsonl KIND N [withPath|engine] — runs N lookups of one kind (foundation-linux) in a
// loop and nothing else, for `perf record` / `valgrind --tool=callgrind` to attribute the time
// of a single query inside BundleIndex (the benchmark harness would drown it); `engine` reads the
// index at every ask (`pathReadingIndex`, what RatioGate's first-ask ratios time). KIND `open`
// opens the queries' bundles by path instead; KIND `first-ask` takes a ShapeMatrix cases file and a mode
// instead of N (FirstAsk.swift); KIND `paths-cases` asks a cases file's `paths` lookups, `forLocalization:` included;
// KIND `page-touch` touches N random pages of the index file, nothing else, and `page-touch-populated` the
// same after mapping the whole file (PageTouch.swift; QUERIES is not read).
import BenchSupport
@_spi(Engine) import BundleIndex
import Foundation

let args = CommandLine.arguments
guard args.count == 5 || (args.count == 6 && ["withPath", "engine"].contains(args[5])), let n = Int(args[4]) ?? (args[3] == "first-ask" ? 0 : nil) else {
    FileHandle.standardError.write(Data("usage: QueryProfile INDEX QUERIES.jsonl KIND N [withPath|engine]\n".utf8))
    exit(2)
}
if args[3] == "page-touch" || args[3] == "page-touch-populated" {
    try pageTouch(index: args[1], count: n, populate: args[3] == "page-touch-populated")
    exit(0)
}
let reader = try IndexReader(path: args[1])
if args[3] == "first-ask" {
    try firstAsk(reader: reader, casesPath: args[2], mode: args[4])
    exit(0)
}
if args[3] == "paths-cases" {
    // QUERIES is a ShapeMatrix cases file: its `paths` lookups, with `forLocalization:` where
    // the case says so, N times in turn.
    let decoder = JSONDecoder()
    var cases: [(IndexedBundle, ShapeCase)] = []
    for line in try String(contentsOfFile: args[2], encoding: .utf8).split(separator: "\n") {
        let c = try decoder.decode(ShapeCase.self, from: Data(line.utf8))
        guard c.operation == .paths, let bundle = try reader.bundle(atPath: c.bundle, context: .foundationLinux) else { continue }
        cases.append((bundle, c))
    }
    var found = 0
    for i in 0..<n {
        let (bundle, c) = cases[i % cases.count]
        found += try (c.localized
            ? bundle.paths(forResourcesOfType: c.type, inDirectory: c.directory, forLocalization: c.localization)
            : bundle.paths(forResourcesOfType: c.type, inDirectory: c.directory)).count
    }
    print("\(n) lookups over \(cases.count) paths cases, \(found) found")
    exit(0)
}
if args[3] == "open" {
    var paths: [String] = []
    for line in try String(contentsOfFile: args[2], encoding: .utf8).split(separator: "\n") {
        if let q = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let path = q["bundle"] as? String {
            paths.append(path)
        }
    }
    var opened = 0
    for i in 0..<n where try reader.bundle(atPath: paths[i % paths.count], context: .foundationLinux) != nil { opened += 1 }
    print("\(n) opens over \(paths.count) paths, \(opened) found")
    exit(0)
}
var cases: [(IndexedBundle, String?, String?, String?)] = []
for line in try String(contentsOfFile: args[2], encoding: .utf8).split(separator: "\n") {
    guard let q = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
          q["kind"] as? String == args[3], q["loc"] == nil, let path = q["bundle"] as? String,
          let bundle = try reader.bundle(atPath: path, context: .foundationLinux) else { continue }
    cases.append((bundle, q["name"] as? String, q["type"] as? String, q["dir"] as? String))
}
var found = 0
for i in 0..<n {
    let (bundle, name, type, dir) = cases[i % cases.count]
    if let name, args.count == 6, args[5] == "engine" {
        found += try bundle.pathReadingIndex(forResource: name, ofType: type, inDirectory: dir) == nil ? 0 : 1
    } else if let name, args.count == 6 {
        found += try bundle.withPath(forResource: name, ofType: type, inDirectory: dir) { $0.count } == nil ? 0 : 1
    } else if let name {
        found += try bundle.path(forResource: name, ofType: type, inDirectory: dir) == nil ? 0 : 1
    } else {
        found += try bundle.paths(forResourcesOfType: type, inDirectory: dir).count
    }
}
print("\(n) lookups over \(cases.count) queries, \(found) found")
