// Hostile files and damaged or foreign indexes, tried through the CLI as a user or an attacker
// would (issue 12): each test names the promise of docs/reliability.md it checks. Every command
// runs under `timeout`, so a hang fails the test instead of stalling the suite.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore
import CLMDB

@Suite("Reliability: hostile files, foreign and damaged indexes")
struct ReliabilityTests {
    static let app = [
        "Phone.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.phone"]),
        "Phone.app/icon.png": "",
    ]

    /// `bundleidx ARGS --index INDEX`, killed after 20 s (a hang shows as status 137).
    func cli(_ index: String, _ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(["timeout", "-s", "KILL", "20", bundleidxBinary] + args + ["--index", index])
    }

    @Test("a FIFO named Info.plist or InfoPlist.strings is skipped with a warning, never opened for reading")
    func fifoInTree() throws {
        let f = try BundleFixture(Self.app.merging([
            "Other.app/icon.png": "", "Phone.app/fr.lproj/x.txt": "",
        ]) { $1 })
        #expect(mkfifo(f.root + "/Other.app/Info.plist", 0o644) == 0)
        #expect(mkfifo(f.root + "/Phone.app/fr.lproj/InfoPlist.strings", 0o644) == 0)
        let built = try cli(f.indexPath, ["build", f.root])
        #expect(built.status == 0, "\(built.status) \(built.stderr)")
        #expect(built.stderr.contains("not a regular file"), "\(built.stderr)")
        #expect(try cli(f.indexPath, ["query", "com.example.phone", "icon", "--type", "png"]).status == 0)
        let verified = try cli(f.indexPath, ["verify", f.root])
        #expect(verified.status == 0, "\(verified.stderr)")
    }

    @Test("index files that are FIFOs, symbolic links or empty are refused with a message, exit 3")
    func hostileIndexFiles() throws {
        let f = try BundleFixture(Self.app)
        try f.build()
        let victim = f.root + "-victim"
        FileManager.default.createFile(atPath: victim, contents: Data("keep me".utf8))
        defer { try? FileManager.default.removeItem(atPath: victim) }

        // lock.mdb linked to another file: nothing may be written through the link.
        try FileManager.default.removeItem(atPath: f.indexPath + "/lock.mdb")
        try FileManager.default.createSymbolicLink(atPath: f.indexPath + "/lock.mdb", withDestinationPath: victim)
        for args in [["query", "com.example.phone", "icon"], ["stats"], ["build", f.root]] {
            let r = try cli(f.indexPath, args)
            #expect(r.status == 3 && r.stderr.contains("symbolic link"), "\(args): \(r.status) \(r.stderr)")
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me")
        try FileManager.default.removeItem(atPath: f.indexPath + "/lock.mdb")

        // data.mdb a FIFO: no command may block on it.
        let fifoIndex = f.root + "-fifo-index"
        try FileManager.default.createDirectory(atPath: fifoIndex, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: fifoIndex) }
        #expect(mkfifo(fifoIndex + "/data.mdb", 0o644) == 0)
        for args in [["query", "com.example.phone", "icon"], ["stats"], ["verify", f.root], ["build", f.root]] {
            let r = try cli(fifoIndex, args)
            #expect(r.status == 3 && r.stderr.contains("not a regular file"), "\(args): \(r.status) \(r.stderr)")
        }

        // data.mdb empty.
        let emptyIndex = f.root + "-empty-index"
        try FileManager.default.createDirectory(atPath: emptyIndex, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: emptyIndex) }
        FileManager.default.createFile(atPath: emptyIndex + "/data.mdb", contents: Data())
        let empty = try cli(emptyIndex, ["query", "com.example.phone", "icon"])
        #expect(empty.status == 3 && empty.stderr.contains("data.mdb is empty"), "\(empty.stderr)")
    }

    @Test("an index folder writable by every user is refused")
    func worldWritableIndexFolder() throws {
        let f = try BundleFixture(Self.app)
        try f.build()
        #expect(chmod(f.indexPath, 0o777) == 0)
        let r = try cli(f.indexPath, ["query", "com.example.phone", "icon", "--type", "png"])
        #expect(r.status == 3 && r.stderr.contains("writable by every user"), "\(r.stderr)")
        #expect(chmod(f.indexPath, 0o755) == 0)
        #expect(try cli(f.indexPath, ["query", "com.example.phone", "icon", "--type", "png"]).status == 0)
    }

    @Test("build refuses a foreign LMDB environment and leaves it byte-identical; query says it is not an index")
    func foreignEnvironment() throws {
        let f = try BundleFixture(Self.app)
        let foreign = f.root + "-foreign"
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: foreign) }
        // Another program's LMDB environment: one named database with one record.
        let env = try LMDBEnvironment(path: foreign, readOnly: false)
        let txn = try LMDBTransaction(environment: env, readOnly: false)
        let dbi = try #require(try env.openDatabase("accounts", in: txn, create: true))
        try txn.put(dbi, key: Array("alice".utf8), value: Array("42".utf8))
        try txn.commit()
        let before = try Data(contentsOf: URL(fileURLWithPath: foreign + "/data.mdb"))

        let built = try cli(foreign, ["build", f.root])
        #expect(built.status == 3 && built.stderr.contains("another program"), "\(built.status) \(built.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: foreign + "/data.mdb")) == before)
        let queried = try cli(foreign, ["query", "com.example.phone", "icon"])
        #expect(queried.status == 3 && queried.stderr.contains("not a bundleidx index"), "\(queried.stderr)")
    }
}

@Suite("Reliability: dead readers")
struct DeadReaderTests {
    /// Processes that hold a reader slot in `index`, from LMDB's reader table (`mdb_reader_list`).
    static func readerPIDs(_ index: String) throws -> [Int32] {
        let env = try LMDBEnvironment(path: index, readOnly: true)
        final class Lines { var text = "" }
        let lines = Lines()
        _ = mdb_reader_list(env.handle, { message, context in
            guard let message, let context else { return 0 }
            Unmanaged<Lines>.fromOpaque(context).takeUnretainedValue().text += String(cString: message)
            return 0
        }, Unmanaged.passUnretained(lines).toOpaque())
        // "    pid     thread     txnid" then one line per slot.
        return lines.text.split(separator: "\n").dropFirst().compactMap { Int32($0.split(separator: " ").first ?? "") }
    }

    /// `bundleidx arguments` started, its standard input a pipe (returned with it), its standard
    /// output `output`.
    static func startBundleidx(_ arguments: [String], output: Any = FileHandle.nullDevice) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bundleidxBinary)
        process.arguments = arguments
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        return (process, input)
    }

    /// One `query --batch` request line.
    static let batchLine = Data(#"{"bundle":"com.example.phone","op":"path","name":"icon","type":"png"}"#.utf8 + [10])

    /// The phone app indexed, and a `Holder` keeping its index open.
    static func heldIndex() throws -> (BundleFixture, Holder) {
        let f = try BundleFixture(ReliabilityTests.app)
        try f.build()
        return (f, try Holder(index: f.indexPath))
    }

    /// A `query --batch` process that answered one query and waits for more: it keeps the
    /// environment open, and LMDB wipes its reader table only when a process opens the index
    /// while nobody else has it open.
    struct Holder {
        let process: Process
        private let input: Pipe

        init(index: String) throws {
            (process, input) = try DeadReaderTests.startBundleidx(["query", "--batch", "--index", index])
            input.fileHandleForWriting.write(DeadReaderTests.batchLine)
            usleep(200_000)
        }

        func stop() {
            input.fileHandleForWriting.closeFile()
            process.waitUntilExit()
        }
    }

    @Test("fresh queries that end normally free their reader slots while another process has the index open")
    func endedQueriesFreeTheirSlots() throws {
        let (f, holder) = try Self.heldIndex()
        defer { holder.stop() }
        var ended: [Int32] = []
        for batch in [false, true] {
            for _ in 0..<4 {
                let (p, input) = try Self.startBundleidx(batch ? ["query", "--batch", "--index", f.indexPath]
                                                               : ["query", "--index", f.indexPath, "com.example.phone", "icon", "--type", "png"])
                if batch { input.fileHandleForWriting.write(DeadReaderTests.batchLine) }
                input.fileHandleForWriting.closeFile()
                p.waitUntilExit()
                #expect(p.terminationStatus == 0)
                ended.append(p.processIdentifier)
            }
        }
        let holders = try Self.readerPIDs(f.indexPath)
        #expect(holders.contains(holder.process.processIdentifier), "the holder keeps its slot: \(holders)")
        #expect(Set(holders).isDisjoint(with: ended), "ended queries left slots: \(ended) vs \(holders)")
    }

    @Test("readers killed with SIGKILL leave no slot behind once a build opens the index")
    func staleSlotsAreCleared() throws {
        let (f, holder) = try Self.heldIndex()
        defer { holder.stop() }
        // Batch readers that answered one query (their reader slot stays, reset, for the next),
        // then die without a chance to release it.
        var killed: [Int32] = []
        for _ in 0..<8 {
            let output = Pipe()
            let (p, input) = try Self.startBundleidx(["query", "--batch", "--index", f.indexPath], output: output)
            input.fileHandleForWriting.write(DeadReaderTests.batchLine)
            _ = output.fileHandleForReading.availableData   // the answer: the query ran
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            killed.append(p.processIdentifier)
        }
        let holders = try Self.readerPIDs(f.indexPath)
        #expect(Set(holders).isSuperset(of: killed), "the killed readers hold slots: \(killed) vs \(holders)")
        try f.build()
        #expect(Set(try Self.readerPIDs(f.indexPath)).isDisjoint(with: killed), "a build clears them")
    }
}

@Suite("Reliability: watchers and sync", .serialized)
struct WatcherReliabilityTests {
    @Test("a second watcher of one index refuses to start; the first keeps the index")
    func secondWatcherRefuses() throws {
        let f = try BundleFixture(ReliabilityTests.app)
        let first = Process()
        first.executableURL = URL(fileURLWithPath: bundleidxBinary)
        first.arguments = ["watch", f.root, "--index", f.indexPath]
        first.standardError = FileHandle.nullDevice
        try first.run()
        defer { first.interrupt(); first.waitUntilExit() }
        // Wait for the first watcher to own the index (it catches up, then syncs answer).
        var owned = false
        for _ in 0..<100 where !owned {
            owned = (try? run([bundleidxBinary, "sync", f.root, "--timeout", "1"]).status) == 0
        }
        #expect(owned)
        let second = try run(["timeout", "-s", "KILL", "20", bundleidxBinary, "watch", f.root, "--index", f.indexPath])
        #expect(second.status != 0 && second.status != 137 && second.stderr.contains("another bundleidx watch"),
                "\(second.status) \(second.stderr)")
        let stats = try run([bundleidxBinary, "stats", "--index", f.indexPath])
        #expect(stats.stdout.contains("watcher: live"), "\(stats.stdout)")
    }

    @Test("sync refuses a timeout that is not a positive number instead of waiting forever")
    func syncTimeoutValidated() throws {
        let f = try BundleFixture(ReliabilityTests.app)
        for value in ["nan", "inf", "-1", "0"] {
            let r = try run(["timeout", "-s", "KILL", "20", bundleidxBinary, "sync", f.root, "--timeout", value])
            // The value named, "-1" too: ArgumentParser took it for an option ("Missing value").
            #expect(r.status == 2 && r.stderr.contains("positive number"), "--timeout \(value): \(r.status) \(r.stderr)")
        }
        for option in ["--settle-ms", "--max-delay-ms", "--rescan-interval"] {
            let r = try run(["timeout", "-s", "KILL", "20", bundleidxBinary, "watch", f.root, "--index", f.indexPath, option, "-5"])
            #expect(r.status == 2 && r.stderr.contains("must be"), "\(option) -5: \(r.status) \(r.stderr)")
        }
        #expect(throws: BundleIndexError.self) { try IndexWatcher.sync(root: f.root, timeout: .nan) }
    }

    @Test("watch raises its soft limit on open files to the hard one")
    func openFileLimitRaised() throws {
        let f = try BundleFixture(ReliabilityTests.app)
        let watcher = try startLimitedWatcher(root: f.root, index: f.indexPath, openFiles: "64:4096")
        defer { watcher.interrupt(); watcher.waitUntilExit() }
        let limits = try String(contentsOfFile: "/proc/\(watcher.processIdentifier)/limits", encoding: .utf8)
        let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }.map(String.init) ?? ""
        #expect(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2) == ["4096", "4096"], "\(line)")
    }

    @Test("a sync cookie left by a killed sync is removed when a watcher catches up")
    func staleCookieRemoved() throws {
        var cookie = ""
        let h = try WatcherHarness(ReliabilityTests.app) { watcher in
            // Left by a sync killed while no watcher ran: created before the catch-up.
            cookie = watcher.roots[0] + "/" + SyncCookie.prefix + "99999-1-1"
            FileManager.default.createFile(atPath: cookie, contents: nil)
        }
        defer { h.stop() }
        #expect(!cookie.isEmpty && !FileManager.default.fileExists(atPath: cookie))
    }
}

@Suite("Reliability: concurrent writers")
struct ConcurrentWriterTests {
    @Test("ten first builds into one new index folder at once all succeed")
    func concurrentFirstBuilds() throws {
        let f = try BundleFixture(ReliabilityTests.app)
        let index = f.root + "-new-index"
        defer { try? FileManager.default.removeItem(atPath: index) }
        var processes: [Process] = []
        for _ in 0..<10 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: bundleidxBinary)
            p.arguments = ["build", f.root, "--index", index]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            processes.append(p)
        }
        for p in processes { try p.run() }
        for p in processes { p.waitUntilExit() }
        #expect(processes.map(\.terminationStatus) == Array(repeating: 0, count: 10))
        #expect(try IndexReader(path: index).bundle(identifier: "com.example.phone") != nil)
    }

    @Test("build refuses an index a watcher keeps, so the watcher's view stays the index's")
    func buildRefusesWatchedIndex() throws {
        let h = try WatcherHarness(ReliabilityTests.app)
        defer { h.stop() }
        #expect(throws: BundleIndexError.self) { try IndexBuilder.build(roots: [h.root], indexPath: h.indexPath) }
        let r = try run([bundleidxBinary, "build", h.root, "--index", h.indexPath])
        #expect(r.status != 0 && r.stderr.contains("bundleidx watch keeps this index"), "\(r.status) \(r.stderr)")
    }
}

@Suite("Reliability: stopping a busy watcher", .tags(.slow),
       .enabled(if: TestPlan.runsSlowSuites, "quick run (tools/test.sh --quick)"))
struct BusyWatcherTests {
    @Test("watch exits within 3 s of SIGTERM even in the middle of a long catch-up")
    func stopsDuringCatchUp() throws {
        // A tree large enough that catching up takes longer than the grace period here, made
        // without worker processes: a child started from the test runner's threads inherits
        // their mask, which blocks most signals, and in one full-suite run gen-tree's worker
        // pool then hung (workers gone, the parent waiting on them).
        let tree = makeTempDirectory(prefix: "busy-watch")
        defer { try? FileManager.default.removeItem(atPath: tree) }
        let generated = try run(["python3", packageRoot + "/tools/gen-tree", "--out", tree + "/t", "--resources", "150000",
                                 "--seed", "3", "--jobs", "1"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: bundleidxBinary)
        watcher.arguments = ["watch", tree + "/t", "--index", tree + "/index"]
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        usleep(300_000)
        let signalled = Date()
        kill(watcher.processIdentifier, SIGTERM)
        watcher.waitUntilExit()
        let seconds = Date().timeIntervalSince(signalled)
        #expect(seconds < 3.8, "exited \(seconds) s after SIGTERM")
        #expect(watcher.terminationReason == .exit && watcher.terminationStatus == 0)
        // The index answers when the catch-up finished; cut short before its first commit, it is
        // refused as never built (CLITests.firstBuildNeverFinished) — never damaged either way.
        let stats = try run([bundleidxBinary, "stats", "--index", tree + "/index"])
        #expect(stats.status == 0 || (stats.status == 3 && stats.stderr.contains("no build of it has finished")), "\(stats.stderr)")
        if stats.status != 0 {
            #expect(try run([bundleidxBinary, "build", tree + "/t", "--index", tree + "/index"]).status == 0)
            #expect(try run([bundleidxBinary, "stats", "--index", tree + "/index"]).status == 0)
        }
    }
}

@Suite("Reliability: rebuild it with bundleidx build")
struct ReplaceUnusableIndexTests {
    /// Builds the app into an index, damages the index with `damage`, then runs `bundleidx build`.
    func buildOver(_ damage: (String) throws -> Void) throws -> (status: Int32, stdout: String, stderr: String, query: Int32) {
        let f = try BundleFixture(ReliabilityTests.app)
        try f.build()
        try damage(f.indexPath)
        let built = try run(["timeout", "-s", "KILL", "60", bundleidxBinary, "build", f.root, "--index", f.indexPath])
        let query = try run([bundleidxBinary, "query", "com.example.phone", "icon", "--type", "png", "--index", f.indexPath])
        return (built.status, built.stdout, built.stderr, query.status)
    }

    @Test("an index of another format version is replaced, with a warning, and then answers")
    func otherFormatVersion() throws {
        let r = try buildOver { index in
            let store = try IndexStore.openForWriting(path: index)
            try store.environment.write { txn in
                try txn.put(store.meta, key: Array("version".utf8), value: withUnsafeBytes(of: UInt32(99).littleEndian) { Array($0) })
            }
        }
        #expect(r.status == 0 && r.stderr.contains("replaced") && r.stderr.contains("format version 99"), "\(r.status) \(r.stderr)")
        #expect(r.query == 0)
    }

    @Test("a truncated or empty data.mdb is replaced by build instead of killing it with SIGBUS")
    func truncatedOrEmpty() throws {
        for size in [4096, 0] {
            let r = try buildOver { index in
                let data = index + "/data.mdb"
                let full = try FileManager.default.attributesOfItem(atPath: data)[.size] as! Int
                #expect(truncate(data, off_t(size == 0 ? 0 : full - size)) == 0)
            }
            #expect(r.status == 0 && r.stderr.contains("replaced"), "\(size): \(r.status) \(r.stderr)")
            #expect(r.query == 0)
        }
    }

    /// Writes `value` at `key` of the database `database` picks, in the index at `index`.
    static func overwrite(_ index: String, _ database: (IndexStore) -> MDB_dbi, key: String,
                          value: ([UInt8]?) -> [UInt8]) throws {
        let store = try IndexStore.openForWriting(path: index)
        try store.environment.write { txn in
            let old = try txn.get(database(store), key: Array(key.utf8))
            try txn.put(database(store), key: Array(key.utf8), value: value(old))
        }
    }

    @Test("a damaged record LMDB reads without complaint is replaced by build, --full or not",
          arguments: [false, true])
    func damagedRecord(full: Bool) throws {
        let f = try BundleFixture(ReliabilityTests.app)
        try f.build()
        // The bundle's record cut short; a garbled list of roots.
        try Self.overwrite(f.indexPath, \.bundles, key: f.root + "/Phone.app") { Array(($0 ?? []).prefix(12)) }
        try Self.overwrite(f.indexPath, \.meta, key: "roots") { _ in [0x05, 0xff] }
        let listed = try run([bundleidxBinary, "bundles", "--index", f.indexPath])
        #expect(listed.status == 3 && listed.stderr.contains("damaged"), "\(listed.status) \(listed.stderr)")
        let built = try run(["timeout", "-s", "KILL", "60", bundleidxBinary, "build", f.root, "--index", f.indexPath] + (full ? ["--full"] : []))
        // Before: exit 3, "damaged ... (rebuild it with bundleidx build)", and the index stayed so.
        #expect(built.status == 0 && built.stderr.contains("replaced") && built.stderr.contains("damaged"), "\(built.status) \(built.stderr)")
        #expect(try run([bundleidxBinary, "query", "com.example.phone", "icon", "--type", "png", "--index", f.indexPath]).status == 0)
        #expect(try run([bundleidxBinary, "verify", "--index", f.indexPath]).status == 0)
    }

    @Test("a damaged index a watcher once kept (its watch.lock left) is replaced; one a watcher keeps now is not touched")
    func damagedWatchedIndex() throws {
        let f = try BundleFixture(ReliabilityTests.app)
        try f.build()
        FileManager.default.createFile(atPath: f.indexPath + "/watch.lock", contents: nil)
        FileManager.default.createFile(atPath: f.indexPath + "/" + IndexStore.damageMark, contents: nil)
        // A running watcher holds watch.lock: the build refuses and deletes nothing.
        let lock = open(f.indexPath + "/watch.lock", O_RDONLY | O_CLOEXEC)
        #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)
        let refused = try run(["timeout", "-s", "KILL", "60", bundleidxBinary, "build", f.root, "--index", f.indexPath])
        #expect(refused.status == 5 && refused.stderr.contains("bundleidx watch"), "\(refused.status) \(refused.stderr)")
        #expect(FileManager.default.fileExists(atPath: f.indexPath + "/data.mdb"), "before: deleted from under the watcher")
        close(lock)
        // The watcher gone, its watch.lock left: the build replaces the index. Before: it deleted
        // data.mdb and lock.mdb, then refused the folder ("not empty and holds no index"), for good.
        let built = try run(["timeout", "-s", "KILL", "60", bundleidxBinary, "build", f.root, "--index", f.indexPath])
        #expect(built.status == 0 && built.stderr.contains("replaced"), "\(built.status) \(built.stderr)")
        #expect(try run([bundleidxBinary, "query", "com.example.phone", "icon", "--type", "png", "--index", f.indexPath]).status == 0)
    }

    @Test("the build that replaces damaged records gives fresh ids: a reader that opened a bundle before never gets another's files")
    func emptiedRebuildKeepsIdsApart() throws {
        let f = try BundleFixture(["B2.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.b2"]), "B2.app/onlyB2.png": ""])
        try f.build()
        try f.add(["B1.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.b1"]), "B1.app/onlyB1.png": ""])
        try f.build()
        // B2 has id 1, B1 id 2; an emptied rebuild walks B1 first.
        let b1 = try f.bundle("B1.app")
        #expect(try b1.path(forResource: "onlyB1", ofType: "png") == f.root + "/B1.app/onlyB1.png")
        try Self.overwrite(f.indexPath, \.bundles, key: f.root + "/B2.app") { Array(($0 ?? []).prefix(12)) }
        let summary = try f.build()
        #expect(summary.replacedIndex != nil)
        // Before: ids started again at 1, B1's old id 2 went to B2, and the old handle answered
        // B1.app/onlyB2.png (no such file).
        #expect(try b1.path(forResource: "onlyB2", ofType: "png") == nil)
        #expect(try f.bundle("B1.app").path(forResource: "onlyB1", ofType: "png") == f.root + "/B1.app/onlyB1.png")
    }

    @Test("meta values past Int64.max: stats says the index is damaged, build repairs it")
    func metaOutOfRange() throws {
        let f = try BundleFixture(ReliabilityTests.app)
        try f.build()
        for key in ["builtAt", "generation", "watchedDirectories"] {
            try Self.overwrite(f.indexPath, \.meta, key: key) { _ in withUnsafeBytes(of: UInt64.max.littleEndian) { Array($0) } }
        }
        // Before: a Swift trap (SIGILL) in stats, and in build (the generation's + 1).
        for json in [false, true] {
            let stats = try run([bundleidxBinary, "stats", "--index", f.indexPath] + (json ? ["--json"] : []))
            #expect(stats.status == 3 && stats.stderr.contains("out of range"), "\(stats.status) \(stats.stderr)")
        }
        let built = try run(["timeout", "-s", "KILL", "60", bundleidxBinary, "build", f.root, "--index", f.indexPath])
        #expect(built.status == 0, "\(built.stderr)")
        let stats = try run([bundleidxBinary, "stats", "--json", "--index", f.indexPath])
        #expect(stats.status == 0 && stats.stdout.contains("\"generation\":1"), "\(stats.status) \(stats.stdout) \(stats.stderr)")
        #expect(try f.reader().generation() == 1)
    }

    @Test("a folder with other files than an index's is never replaced")
    func otherFilesAreKept() throws {
        let r = try buildOver { index in
            FileManager.default.createFile(atPath: index + "/notes.txt", contents: Data("mine".utf8))
            let data = index + "/data.mdb"
            #expect(truncate(data, 0) == 0)
        }
        #expect(r.status == 3, "\(r.status) \(r.stderr)")
    }
}

@Suite("Reliability: limits and verify")
struct LimitsAndVerifyTests {
    @Test("an Info.plist over the 1 MiB limit is not read: a warning, the bundle indexed without it")
    func hugeInfoPlist() throws {
        var keys = ""
        for i in 0..<40_000 { keys += "<key>K\(i)</key><string>\(String(repeating: "x", count: 40))</string>" }
        let f = try BundleFixture([
            "Big.app/Info.plist": "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>CFBundleIdentifier</key>"
                + "<string>com.example.big</string>\(keys)</dict></plist>",
            "Big.app/icon.png": "",
        ])
        let built = try run([bundleidxBinary, "build", f.root, "--index", f.indexPath])
        #expect(built.status == 0 && built.stderr.contains("larger than 1 MiB"), "\(built.status) \(built.stderr)")
        let big = try #require(try f.reader().bundle(atPath: f.root + "/Big.app", context: .foundationLinux))
        #expect(big.bundleIdentifier == nil && big.infoDictionary.isEmpty)
        #expect(try big.path(forResource: "icon", ofType: "png") != nil)
    }

    @Test("links that fan out (7 levels of d/l0…l9 → ../next) expand one bundle only to the documented bound")
    func linkExpansionIsBounded() throws {
        var links: [String: String] = [:]
        for level in 0..<7 {
            for l in 0..<10 { links["Bomb.bundle/d\(level)/l\(l)"] = "../d\(level + 1)" }
        }
        let f = try BundleFixture(ReliabilityTests.app.merging(["Bomb.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.bomb"]),
                                                    "Bomb.bundle/d7/leaf.txt": ""]) { $1 }, links: links)
        let summary = try f.build()
        // Before the bound: 950 026 resources (the 500 000-directory cap), 104 MiB, 25 s.
        #expect(summary.resources < 50_000, "\(summary.resources) resources")
        #expect(summary.warnings.contains { $0.contains("symbolic links reach more than 10000 directories a second time") },
                "\(summary.warnings)")
        let bomb = try #require(try f.reader().bundle(identifier: "com.example.bomb", context: .foundationLinux))
        // Every real directory is indexed under its own path; only link copies are cut.
        for level in 0..<7 {
            #expect(try bomb.paths(forResourcesOfType: nil, inDirectory: "d\(level)").count == 10)
        }
        #expect(try bomb.path(forResource: "leaf", ofType: "txt", inDirectory: "d7") != nil)
        #expect(try bomb.path(forResource: "leaf", ofType: "txt", inDirectory: "d6/l9") != nil)
        #expect(try f.bundle("Phone.app").path(forResource: "icon", ofType: "png") != nil)
    }

    @Test("verify reads the identifiers database: a missing or stray identifier entry is a difference")
    func verifyChecksIdentifiers() throws {
        let f = try BundleFixture(StoreTests.twoBundles)
        try f.build()
        #expect(try IndexVerifier.verify(indexPath: f.indexPath, roots: [f.root]) == [])
        let store = try IndexStore.openForWriting(path: f.indexPath)
        try store.environment.write { txn in
            try txn.delete(store.identifiers, key: Array("a".utf8), value: Array((f.root + "/A.app").utf8))
            try txn.put(store.identifiers, key: Array("ghost".utf8), value: Array((f.root + "/B.app").utf8))
        }
        let differences = try IndexVerifier.verify(indexPath: f.indexPath, roots: [f.root]).map(\.detail)
        #expect(differences.contains { $0.contains("identifier a is missing") }, "\(differences)")
        #expect(differences.contains { $0.contains("ghost is indexed for a bundle that does not declare it") }, "\(differences)")
    }
}

@Suite("Paths and identifiers longer than an index key")
struct LongKeyTests {
    @Test("the key limit the index assumes is the linked LMDB's")
    func keyLimitIsLMDBs() throws {
        var env: OpaquePointer?
        #expect(mdb_env_create(&env) == 0)
        defer { mdb_env_close(env) }
        #expect(Int(mdb_env_get_maxkeysize(env)) == IndexStore.maximumKeyBytes)
    }

    /// A folder name of 100 bytes, repeated until a bundle path inside `root` passes the limit.
    static func longBundle(in root: String) -> String {
        var relative = ""
        while (root + "/" + relative).utf8.count <= IndexStore.maximumKeyBytes { relative += String(repeating: "d", count: 100) + "/" }
        return relative + "Long.app"
    }

    @Test("a bundle whose path is longer than a key is left out with a warning; the rest is indexed; so is an identifier")
    func buildLeavesItOut() throws {
        let probe = try BundleFixture([:])
        let long = Self.longBundle(in: probe.root)
        let identifier = String(repeating: "i", count: IndexStore.maximumKeyBytes + 1)
        let f = try BundleFixture(["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.a"]),
                                   "\(long)/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.long"]),
                                   "B.app/Info.plist": infoPlist(["CFBundleIdentifier": identifier])])
        let summary = try IndexBuilder.build(roots: [f.root], indexPath: f.indexPath)
        #expect(summary.bundles == 2)
        #expect(summary.warnings.contains { $0.contains("Long.app: not indexed: its path has") })
        let reader = try IndexReader(path: f.indexPath)
        #expect(try reader.bundle(identifier: "org.example.a", context: .foundationLinux) != nil)
        #expect(try reader.bundle(atPath: f.root + "/B.app", context: .foundationLinux)?.bundleIdentifier == identifier)
        #expect(try reader.bundle(identifier: identifier, context: .foundationLinux) == nil)
        #expect(try IndexVerifier.verify(indexPath: f.indexPath, roots: [f.root]) == [])
    }

    @Test("a watcher goes on when such a bundle appears")
    func watcherGoesOn() throws {
        let h = try WatcherHarness(["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.a"])])
        defer { h.stop() }
        try h.write(LongKeyTests.longBundle(in: h.root) + "/Info.plist", infoPlist(["CFBundleIdentifier": "org.example.long"]))
        try h.sync()
        try h.write("B.app/Info.plist", infoPlist(["CFBundleIdentifier": "org.example.b"]))
        try h.sync()
        #expect(try h.bundle("B.app") != nil)
        #expect(try h.verify() == [])
    }
}
