// DropInBench: IndexedFoundationBundle next to Foundation's Bundle, both sides measured in one
// run, alternating (the machine is shared; absolute times move, ratios much less).
//
//   swift run -c release DropInBench [--bundles N] [--keys K] [--rounds R] [--strings-file FILE]
//
// It writes N bundles of one shape (flat iOS-style app, development region en, an Info.plist,
// en.lproj and fr.lproj with a Localizable.strings of K entries — or a copy of FILE, a real
// table, whose keys are then the ones asked — a few images), indexes them,
// then measures per call, in nanoseconds:
//   first localizedString  the first ask of a table on a bundle just opened: Foundation parses
//                          the table, the drop-in reads one entry (one sample per bundle)
//   first ask of a key     a key not asked yet, of a table already asked (the drop-in reads it)
//   repeat localizedString random keys of a table already asked
//   first path lookup      the first path(forResource:ofType:) on a bundle just opened
//                          (Foundation lists the folders it searches)
//   repeat path lookup     path(forResource:ofType:) of resources already looked up
//   object(forInfoDictionaryKey:)  repeated
// Each line: median of each side and Foundation ÷ drop-in (above 1: the drop-in is faster).
import BundleIndex
import BundleIndexFoundation
import CoreFoundation
import Foundation
import Glibc

struct Options {
    var bundles = 200, keys = 400, rounds = 15
    var stringsFile: String?
    init() {
        var args = CommandLine.arguments.dropFirst().makeIterator()
        while let a = args.next() {
            if a == "--strings-file", let file = args.next() {
                stringsFile = file
                continue
            }
            guard ["--bundles", "--keys", "--rounds"].contains(a), let v = args.next().flatMap(Int.init), v > 0 else {
                Self.usage(a == "--help" || a == "-h" ? 0 : 2)
            }
            switch a {
            case "--bundles": bundles = v
            case "--keys": keys = v
            default: rounds = v
            }
        }
    }

    static func usage(_ status: Int32) -> Never {
        let text = "usage: DropInBench [--bundles N] [--keys K] [--rounds R] [--strings-file FILE]   (positive numbers; defaults 200, 400, 15)\n"
        (status == 0 ? FileHandle.standardOutput : FileHandle.standardError).write(Data(text.utf8))
        exit(status)
    }
}

func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.isEmpty ? .nan : s[s.count / 2]
}

func write(_ path: String, _ text: String) {
    try! FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
}

/// One row of the report.
func report(_ what: String, foundation: [Double], dropIn: [Double]) {
    let (f, d) = (median(foundation), median(dropIn))
    print(String(format: "%-34@ Foundation %9.0f ns   drop-in %7.0f ns   ratio %6.1f", what as NSString, f, d, f / d))
}

let options = Options()
let scratch = NSTemporaryDirectory() + "dropin-bench-\(getpid())"
defer { try? FileManager.default.removeItem(atPath: scratch) }
let tree = scratch + "/tree", index = scratch + "/index"
// A real table's keys (those with string values, which both sides answer alike), or K made-up ones.
let realTable = options.stringsFile.map { file -> (text: Data, keys: [String]) in
    guard let data = FileManager.default.contents(atPath: file),
          let table = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
        FileHandle.standardError.write(Data("DropInBench: \(file) is not a readable strings table\n".utf8))
        exit(2)
    }
    return (data, table.compactMap { $0.value is String ? $0.key : nil }.sorted())
}
let keys = realTable?.keys ?? (0..<options.keys).map { "message.\($0).title" }
for b in 0..<options.bundles {
    let app = tree + "/App\(b).app"
    let info: [String: Any] = ["CFBundleIdentifier": "com.example.bench.\(b)", "CFBundleDevelopmentRegion": "en",
                               "CFBundleName": "App \(b)", "CFBundleVersion": "1.\(b)"]
    write(app + "/Info.plist", String(decoding: try! PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0), as: UTF8.self))
    for l in ["en", "fr"] {
        if let realTable {
            try! FileManager.default.createDirectory(atPath: app + "/\(l).lproj", withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: app + "/\(l).lproj/Localizable.strings", contents: realTable.text)
        } else {
            write(app + "/\(l).lproj/Localizable.strings",
                  keys.map { "/* \($0) */\n\"\($0)\" = \"\(l): the text of \($0), of a usual length\";\n" }.joined())
        }
        write(app + "/\(l).lproj/local.png", "")
    }
    for i in 0..<20 { write(app + "/Images/icon\(i).png", ""); write(app + "/asset\(i).json", "") }
}
let summary = try IndexBuilder.build(roots: [tree], indexPath: index)
print("\(options.bundles) bundles, \(summary.resources) resources, \(keys.count) keys per table\(options.stringsFile.map { " (" + $0 + ")" } ?? ""); \(options.rounds) rounds")

func timed(_ body: () -> Void) -> Double {
    let t = now()
    body()
    return Double(now() - t)
}

var sink = 0
let paths = (0..<options.bundles).map { tree + "/App\($0).app" }

// First asks, one sample per bundle and side on bundles neither side has asked anything yet:
// strings on the even bundles, paths on the odd ones; the side that goes first alternates.
var firstString: ([Double], [Double]) = ([], []), firstPath: ([Double], [Double]) = ([], [])
for (i, path) in paths.enumerated() {
    let f = Bundle(path: path)!, d = IndexedFoundationBundle(path: path, index: index)!
    precondition(d.isIndexed)
    let key = keys[i % keys.count], name = "asset\(i % 20)"
    let sides: [(Bool, () -> Void)] = i % 2 == 0 ? [
        (true, { sink &+= f.localizedString(forKey: key, value: nil, table: nil).utf8.count }),
        (false, { sink &+= d.localizedString(forKey: key, value: nil, table: nil).utf8.count }),
    ] : [
        (true, { sink &+= f.path(forResource: name, ofType: "json")?.utf8.count ?? 0 }),
        (false, { sink &+= d.path(forResource: name, ofType: "json")?.utf8.count ?? 0 }),
    ]
    for (isFoundation, ask) in (i / 2) % 2 == 0 ? sides : sides.reversed() {
        let t = timed(ask)
        switch (i % 2 == 0, isFoundation) {
        case (true, true): firstString.0.append(t)
        case (true, false): firstString.1.append(t)
        case (false, true): firstPath.0.append(t)
        case (false, false): firstPath.1.append(t)
        }
    }
    precondition(f.localizedString(forKey: key, value: nil, table: nil) == d.localizedString(forKey: key, value: nil, table: nil))
    precondition(f.path(forResource: name, ofType: "json") == d.path(forResource: name, ofType: "json"))
}
report("first localizedString of a table", foundation: firstString.0, dropIn: firstString.1)

// A key's first ask in a table already asked: Foundation looks in the table it parsed; the
// drop-in has the table's files but not the answer, so it reads the entry (fresh drop-ins of
// the even bundles, whose tables both sides have asked once above).
var firstKey: ([Double], [Double]) = ([], [])
for (i, path) in paths.enumerated() where i % 2 == 0 {
    let f = Bundle(path: path)!, d = IndexedFoundationBundle(path: path, index: index)!
    sink &+= d.localizedString(forKey: keys[i % keys.count], value: nil, table: nil).utf8.count
    for k in 1...8 {
        let key = keys[(i + k * 37) % keys.count]
        firstKey.0.append(timed { sink &+= f.localizedString(forKey: key, value: nil, table: nil).utf8.count })
        firstKey.1.append(timed { sink &+= d.localizedString(forKey: key, value: nil, table: nil).utf8.count })
    }
}
report("first ask of a key, table asked", foundation: firstKey.0, dropIn: firstKey.1)

// Repeat asks: blocks of calls, alternating sides, the median block per call.
func repeated(_ what: String, calls: Int = 2000, foundation: (Int) -> Void, dropIn: (Int) -> Void) {
    var fs: [Double] = [], ds: [Double] = []
    for _ in 0..<calls { foundation(0); dropIn(0) }   // warm both
    for r in 0..<options.rounds {
        for side in r % 2 == 0 ? [true, false] : [false, true] {
            if side {
                fs.append(timed { for c in 0..<calls { foundation(c) } } / Double(calls))
            } else {
                ds.append(timed { for c in 0..<calls { dropIn(c) } } / Double(calls))
            }
        }
    }
    report(what, foundation: fs, dropIn: ds)
}

let f0 = Bundle(path: paths[0])!, d0 = IndexedFoundationBundle(path: paths[0], index: index)!
var rng = SystemRandomNumberGenerator()
let order = (0..<4096).map { _ in Int.random(in: 0..<keys.count, using: &rng) }
repeated("repeat localizedString", foundation: { c in sink &+= f0.localizedString(forKey: keys[order[c & 4095]], value: nil, table: nil).utf8.count },
         dropIn: { c in sink &+= d0.localizedString(forKey: keys[order[c & 4095]], value: nil, table: nil).utf8.count })
repeated("repeat localizedString, missing", foundation: { _ in sink &+= f0.localizedString(forKey: "no such key", value: "v", table: nil).utf8.count },
         dropIn: { _ in sink &+= d0.localizedString(forKey: "no such key", value: "v", table: nil).utf8.count })
report("first path lookup of a bundle", foundation: firstPath.0, dropIn: firstPath.1)
let names = (0..<20).map { "icon\($0)" }
repeated("repeat path(forResource:ofType:inDir)", foundation: { c in sink &+= f0.path(forResource: names[c % 20], ofType: "png", inDirectory: "Images")?.utf8.count ?? 0 },
         dropIn: { c in sink &+= d0.path(forResource: names[c % 20], ofType: "png", inDirectory: "Images")?.utf8.count ?? 0 })
repeated("repeat path(forResource:ofType:) lproj", foundation: { _ in sink &+= f0.path(forResource: "local", ofType: "png")?.utf8.count ?? 0 },
         dropIn: { _ in sink &+= d0.path(forResource: "local", ofType: "png")?.utf8.count ?? 0 })
repeated("object(forInfoDictionaryKey:)", foundation: { _ in sink &+= (f0.object(forInfoDictionaryKey: "CFBundleName") as? String)?.utf8.count ?? 0 },
         dropIn: { _ in sink &+= (d0.object(forInfoDictionaryKey: "CFBundleName") as? String)?.utf8.count ?? 0 })
if sink == 42 { print("") }
