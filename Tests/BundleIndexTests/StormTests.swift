// A seeded storm of file-system operations under a running `bundleidx watch` while reader
// processes query continuously; the watcher is killed with SIGKILL halfway and restarted.
// Asserted: no reader error, no torn answer, and after `sync` the index equals a fresh scan.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

/// The storm's own picture of the tree (relative to the storm folder), so operations can pick
/// existing targets without listing directories.
struct StormTree {
    var bundles: [String] = []
    var dirs: [String] = []     // directories inside bundles (bundle roots included)
    var files: [String] = []
    var rng: SeededRandom
    let base: String
    var serial = 0

    init(base: String, seed: UInt64) { self.base = base; rng = SeededRandom(state: seed) }

    private var fm: FileManager { .default }

    mutating func name(_ stem: String) -> String { serial += 1; return "\(stem)\(serial)" }

    mutating func createBundle() {
        let b = name("S") + (rng.below(2) == 0 ? ".app" : ".bundle")
        let contents = rng.below(2) == 0
        let res = contents ? b + "/Contents/Resources" : b
        try? fm.createDirectory(atPath: base + "/" + res + "/en.lproj", withIntermediateDirectories: true)
        writeInfo(b, contents: contents)
        bundles.append(b)
        dirs += [res, res + "/en.lproj"]
        for _ in 0..<3 { createFile(in: rng.pick([res, res + "/en.lproj"])!) }
    }

    mutating func writeInfo(_ b: String, contents: Bool? = nil) {
        let isContents = contents ?? fm.fileExists(atPath: base + "/" + b + "/Contents")
        let path = base + "/" + b + (isContents ? "/Contents/Info.plist" : "/Info.plist")
        try? fm.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let dev = rng.pick(["en", "fr", "de"])!
        try? Data(infoPlist(["CFBundleIdentifier": "storm.\(rng.below(50))", "CFBundleDevelopmentRegion": dev]).utf8)
            .write(to: URL(fileURLWithPath: path))
    }

    mutating func createFile(in dir: String) {
        let ext = rng.pick(["png", "txt", "strings", "nib"])!
        let variant = rng.pick(["", "", "", "-linux", "~ipad"])!
        let f = dir + "/" + name("f") + variant + "." + ext
        if fm.createFile(atPath: base + "/" + f, contents: Data("x".utf8)) { files.append(f) }
    }

    mutating func step() {
        if bundles.count < 3 { return createBundle() }
        let roll = rng.below(100)
        switch roll {
        case 0..<35:
            if let d = rng.pick(dirs) { createFile(in: d) }
        case 35..<55 where !files.isEmpty:
            let i = rng.below(files.count)
            try? fm.removeItem(atPath: base + "/" + files[i])
            files.remove(at: i)
        case 55..<63:
            guard let b = rng.pick(dirs) else { return }
            let d = b + "/" + (rng.below(3) == 0 ? rng.pick(["fr", "de", "ja", "Base"])! + ".lproj" : name("d"))
            if (try? fm.createDirectory(atPath: base + "/" + d, withIntermediateDirectories: false)) != nil { dirs.append(d) }
        case 63..<67:
            let candidates = dirs.filter { d in !bundles.contains(d) && !d.hasSuffix("/Contents/Resources") }
            guard let d = rng.pick(candidates) else { return }
            try? fm.removeItem(atPath: base + "/" + d)
            forget(d)
        case 67..<77 where !files.isEmpty:
            let i = rng.below(files.count)
            guard let to = rng.pick(dirs) else { return }
            let target = to + "/" + name("m") + "." + rng.pick(["png", "txt"])!
            if (try? fm.moveItem(atPath: base + "/" + files[i], toPath: base + "/" + target)) != nil {
                files[i] = target
            }
        case 77..<81:
            let candidates = dirs.filter { d in !bundles.contains(d) && !d.hasSuffix("/Contents/Resources") && !d.hasSuffix(".lproj") }
            guard let d = rng.pick(candidates) else { return }
            rename(d, to: (d as NSString).deletingLastPathComponent + "/" + name("r"))
        case 81..<86: createBundle()
        case 86..<89:
            guard let b = rng.pick(bundles) else { return }
            try? fm.removeItem(atPath: base + "/" + b)
            forget(b)
        case 89..<92:
            guard let b = rng.pick(bundles) else { return }
            rename(b, to: name("R") + ".app")
        default:
            if let b = rng.pick(bundles) { writeInfo(b) }
        }
    }

    mutating func forget(_ p: String) {
        let under = { (x: String) in x == p || x.hasPrefix(p + "/") }
        bundles.removeAll(where: under); dirs.removeAll(where: under); files.removeAll(where: under)
    }

    mutating func rename(_ from: String, to: String) {
        guard (try? fm.moveItem(atPath: base + "/" + from, toPath: base + "/" + to)) != nil else { return }
        let move = { (x: String) -> String in x == from || x.hasPrefix(from + "/") ? to + x.dropFirst(from.count) : x }
        bundles = bundles.map(move); dirs = dirs.map(move); files = files.map(move)
    }
}

@Suite("Watcher under a storm", .serialized, .tags(.slow), .enabled(if: TestPlan.runsSlowSuites, "quick run (tools/test.sh --quick)"))
struct StormTests {
    static let stable = [
        "Stable1.app/Info.plist": infoPlist(["CFBundleIdentifier": "stable.one", "CFBundleDevelopmentRegion": "en"]),
        "Stable1.app/icon.png": "", "Stable1.app/logo.png": "", "Stable1.app/logo-linux.png": "",
        "Stable1.app/en.lproj/Localizable.strings": "",
        "Stable2.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "stable.two", "CFBundleDevelopmentRegion": "fr"]),
        "Stable2.app/Contents/Resources/fr.lproj/a.txt": "", "Stable2.app/Contents/Resources/b.txt": "",
    ]

    /// Batch query lines and their answers (ROOT: the fixture's root), which are compared as
    /// parsed JSON values.
    static let queries: [(String, String)] = [
        (#"{"bundle":"stable.one","op":"path","name":"icon","type":"png","dir":null}"#, #""ROOT/Stable1.app/icon.png""#),
        (#"{"bundle":"stable.one","op":"path","name":"logo","type":"png","dir":null}"#, #""ROOT/Stable1.app/logo-linux.png""#),
        (#"{"bundle":"stable.one","op":"path","name":"Localizable","type":"strings","dir":null}"#, #""ROOT/Stable1.app/en.lproj/Localizable.strings""#),
        (#"{"bundle":"stable.two","op":"path","name":"a","type":"txt","dir":null}"#, #""ROOT/Stable2.app/Contents/Resources/fr.lproj/a.txt""#),
        (#"{"bundle":"stable.two","op":"paths","type":"txt","dir":null}"#,
         #"["ROOT/Stable2.app/Contents/Resources/b.txt","ROOT/Stable2.app/Contents/Resources/fr.lproj/a.txt"]"#),
    ]

    /// The JSON value of one answer line, for comparing answers whatever their spelling.
    static func parsed(_ line: some StringProtocol) -> NSObject? {
        try? JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed]) as? NSObject
    }

    func startWatcher(_ root: String, _ index: String, log: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: bundleidxBinary)
        p.arguments = ["watch", root, "--index", index, "--settle-ms", "5", "--max-delay-ms", "200"]
        FileManager.default.createFile(atPath: log, contents: nil)
        p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            if let s = try? IndexReader(path: index).statistics(), s.watchState == "live" || s.watchState == "degraded",
               s.watcherPID == p.processIdentifier { return p }
            usleep(20_000)
        }
        throw FixtureError(message: "the watcher did not come up; see \(log)")
    }

    @Test("20 000 operations, 4 readers, a kill -9 halfway: no reader error, verify clean")
    func storm() throws {
        let fixture = try BundleFixture(Self.stable)
        let root = fixture.root, index = fixture.indexPath
        try FileManager.default.createDirectory(atPath: root + "/storm", withIntermediateDirectories: true)
        let work = makeTempDirectory(prefix: "storm-work")
        defer { try? FileManager.default.removeItem(atPath: work) }
        var watcher = try startWatcher(root, index, log: work + "/watch1.log")

        // Readers: loop `bundleidx query --batch` over the stable queries until told to stop.
        let queryFile = work + "/q.jsonl"
        try Self.queries.map(\.0).joined(separator: "\n").write(toFile: queryFile, atomically: true, encoding: .utf8)
        var readers: [Process] = []
        for i in 0..<4 {
            let r = Process()
            r.executableURL = URL(fileURLWithPath: "/bin/bash")
            r.arguments = ["-c", """
                while [ ! -e "\(work)/stop" ]; do
                  "\(bundleidxBinary)" query --batch --profile foundation-linux --index "\(index)" < "\(queryFile)" >> "\(work)/out\(i)" 2>> "\(work)/err\(i)" || echo "EXIT $?" >> "\(work)/err\(i)"
                done
                """]
            try r.run()
            readers.append(r)
        }

        var tree = StormTree(base: root + "/storm", seed: 20_261_122)
        for op in 0..<20_000 {
            tree.step()
            if op == 8_000 {
                try IndexWatcher.sync(root: root, timeout: 60)
                let live = try IndexVerifier.verify(indexPath: index, roots: [root])
                #expect(live == [], "verify with the watcher alive: \(live.prefix(10))")
            }
            if op == 10_000 {
                kill(watcher.processIdentifier, SIGKILL)
                watcher.waitUntilExit()
                #expect(watcher.terminationReason == .uncaughtSignal)
            }
            if op == 14_000 { watcher = try startWatcher(root, index, log: work + "/watch2.log") }
        }
        try IndexWatcher.sync(root: root, timeout: 60)
        FileManager.default.createFile(atPath: work + "/stop", contents: nil)
        for r in readers { r.waitUntilExit() }
        let differences = try IndexVerifier.verify(indexPath: index, roots: [root])
        #expect(differences == [], "\(differences.prefix(10))")
        watcher.interrupt()
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 0)

        // Every answer of every reader: the stable answers, whole.
        for i in 0..<4 {
            let err = (try? String(contentsOfFile: work + "/err\(i)", encoding: .utf8)) ?? ""
            #expect(err.isEmpty, "reader \(i): \(err.prefix(500))")
            let lines = ((try? String(contentsOfFile: work + "/out\(i)", encoding: .utf8)) ?? "").split(separator: "\n")
            #expect(lines.count >= Self.queries.count, "reader \(i) answered \(lines.count) queries")
            #expect(lines.count % Self.queries.count == 0, "reader \(i): an answer is missing")
            let expected = Self.queries.map { Self.parsed($0.1.replacingOccurrences(of: "ROOT", with: root)) }
            for (n, line) in lines.enumerated() where Self.parsed(line) != expected[n % expected.count] {
                Issue.record("reader \(i) line \(n): \(line)")
                break
            }
        }
        let log = (try? String(contentsOfFile: work + "/watch2.log", encoding: .utf8)) ?? ""
        #expect(log.contains("caught up"), "the restarted watcher logs its catch-up")
    }
}
