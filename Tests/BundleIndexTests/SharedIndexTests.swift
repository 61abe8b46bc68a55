// A shared index read by users who may not write it (issue 12, docs/reliability.md "A shared
// index"): the tests run the CLI as `nobody` through `setpriv`, which needs root to switch user.
import Foundation
import Synchronization
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Reliability: a shared index", .enabled(if: runsAsRoot, "running a command as another user needs root"))
struct SharedIndexTests {
    /// `argv` run as user and group 65534 (nobody), without supplementary groups.
    static func asNobody(_ argv: [String], input: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "timeout", "-s", "KILL", "60"] + argv,
                input: input)
    }

    static let tree: [String: String] = {
        var files = ["Phone.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.phone"])]
        for i in 0..<2_000 { files["Phone.app/resource-\(i).txt"] = "" }
        return files
    }()

    @Test("a user without write access queries, lists and verifies; only build is refused")
    func readerWithoutWriteAccess() throws {
        let f = try BundleFixture(Self.tree)
        try f.build()
        let lockBefore = try Data(contentsOf: URL(fileURLWithPath: f.indexPath + "/lock.mdb"))
        for args in [["query", "com.example.phone", "resource-7", "--type", "txt"], ["bundles"], ["stats"],
                     ["info", "com.example.phone"], ["verify", f.root]] {
            let r = try Self.asNobody([bundleidxBinary] + args + ["--index", f.indexPath])
            #expect(r.status == 0, "\(args): \(r.status) \(r.stderr)")
        }
        let built = try Self.asNobody([bundleidxBinary, "build", f.root, "--index", f.indexPath])
        #expect(built.status == 3 && built.stderr.contains("Permission denied"), "\(built.status) \(built.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: f.indexPath + "/lock.mdb")) == lockBefore)
    }

    @Test("an index behind a folder the user may not search: permission denied, not \"no index\"")
    func indexBehindALockedFolder() throws {
        let f = try BundleFixture(["Phone.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.phone"])])
        let locked = makeTempDirectory(prefix: "locked")
        defer { chmod(locked, 0o755); try? FileManager.default.removeItem(atPath: locked) }
        #expect(try IndexBuilder.build(roots: [f.root], indexPath: locked + "/index").bundles == 1)
        chmod(locked, 0)
        for args in [["query", "com.example.phone", "Info", "--type", "plist"], ["stats"], ["bundles"]] {
            let r = try Self.asNobody([bundleidxBinary] + args + ["--index", locked + "/index"])
            // Exit 3, the index's error, as for an index folder or a data.mdb the user may not
            // read (it was 5 here and 3 there; review w25).
            #expect(r.status == 3 && r.stderr.contains("Permission denied") && !r.stderr.contains("no index"),
                    "\(args): \(r.status) \(r.stderr)")
        }
        let f2 = try BundleFixture(["Phone.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.phone"])])
        try f2.build()
        chmod(f2.indexPath, 0o700)
        defer { chmod(f2.indexPath, 0o755) }
        let r = try Self.asNobody([bundleidxBinary, "query", "com.example.phone", "Info", "--type", "plist", "--index", f2.indexPath])
        #expect(r.status == 3 && r.stderr.contains("Permission denied"), "\(r.status) \(r.stderr)")
    }

    @Test("a reader without the lock file answers right while the owner rebuilds the index again and again")
    func locklessReaderDuringRebuilds() throws {
        let f = try BundleFixture(Self.tree)
        try f.build()
        final class Stop: Sendable { let flag = Atomic<Bool>(false) }
        let stop = Stop()
        let (root, index) = (f.root, f.indexPath)
        let builder = Thread {
            // Each build changes the bundle, so its pages are rewritten and the freed ones reused.
            var round = 0
            while !stop.flag.load(ordering: .relaxed) {
                round += 1
                FileManager.default.createFile(atPath: root + "/Phone.app/churn-\(round % 50).txt", contents: nil)
                try? FileManager.default.removeItem(atPath: root + "/Phone.app/churn-\((round + 25) % 50).txt")
                _ = try? IndexBuilder.build(roots: [root], indexPath: index)
            }
        }
        builder.start()
        defer { stop.flag.store(true, ordering: .relaxed) }
        let names = (0..<20).map { $0 * 97 }
        var lines = ""
        for i in 0..<40_000 {
            lines += #"{"bundle":"com.example.phone","op":"path","name":"resource-\#(names[i % 20])","type":"txt"}"# + "\n"
        }
        let r = try Self.asNobody([bundleidxBinary, "query", "--batch", "--index", f.indexPath], input: lines)
        stop.flag.store(true, ordering: .relaxed)
        #expect(r.status == 0, "\(r.status) \(r.stderr)")
        let answers = r.stdout.split(separator: "\n")
        #expect(answers.count == 40_000)
        let wrong = answers.enumerated().filter { i, answer in
            !answer.hasSuffix(#"/Phone.app/resource-\#(names[i % 20]).txt""#)
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong answers, the first: \(wrong.first.map { String($0.1) } ?? "")")
    }
}

@Suite("Reliability: lockless reads")
struct LocklessReadTests {
    @Test("a lockless read that two commits overtook is read again from a newer snapshot; one commit is harmless")
    func overtakenReadIsRepeated() throws {
        let f = try BundleFixture(SharedIndexTests.tree)
        try f.build()
        let env = try LMDBEnvironment(path: f.indexPath, readOnly: true, lockless: true)
        func commits(_ count: Int) throws {
            for i in 0..<count {
                FileManager.default.createFile(atPath: f.root + "/Phone.app/new-\(UUID())-\(i).txt", contents: nil)
                try f.build()
            }
        }
        for (overtaking, expectedCalls) in [(1, 1), (2, 2), (5, 2)] {
            var calls = 0
            var snapshots: [UInt64] = []
            try env.read { txn in
                calls += 1
                snapshots.append(txn.id)
                if calls == 1 { try commits(overtaking) }
            }
            #expect(calls == expectedCalls, "\(overtaking) commits during the read: \(snapshots)")
            // The kept read saw a snapshot whose pages no writer could have reused meanwhile.
            #expect(env.newestTransactionID() <= (snapshots.last ?? 0) + 1, "\(snapshots)")
        }
    }
}

@Suite("Reliability: a verify overtaken by commits")
struct OvertakenVerifyTests {
    /// What the seam does between verify's snapshot and its comparison (`IndexVerifier.afterSnapshot`).
    final class Interloper: @unchecked Sendable {
        let fixture: BundleFixture
        let commits: Int
        var snapshots: [UInt64] = []
        init(_ fixture: BundleFixture, commits: Int) { (self.fixture, self.commits) = (fixture, commits) }

        func act(_ snapshot: UInt64) throws {
            snapshots.append(snapshot)
            guard snapshots.count == 1, commits > 0 else { return }
            // The disk changes, and the index follows it, after verify took its snapshot.
            FileManager.default.createFile(atPath: fixture.root + "/Phone.app/added.txt", contents: nil)
            for _ in 0..<commits { try fixture.build() }
        }
    }

    @Test("a lockless verify that two commits overtook reads again and reports no mismatch; after one it keeps its snapshot")
    func overtakenVerifyReadsAgain() throws {
        for (commits, reads, differences) in [(0, 1, 0), (1, 1, 1), (2, 2, 0), (4, 2, 0)] {
            let f = try BundleFixture(SharedIndexTests.tree)
            try f.build()
            let store = try IndexStore.openLocklessForTesting(path: f.indexPath)
            #expect(store.environment.lockless)
            let interloper = Interloper(f, commits: commits)
            let found = try IndexVerifier.$afterSnapshot.withValue({ try interloper.act($0) }) {
                try IndexVerifier.verify(store: store, roots: [f.root])
            }
            #expect(interloper.snapshots.count == reads, "\(commits) commits: snapshots \(interloper.snapshots)")
            // One commit cannot have reused the snapshot's pages: the read stands, and reports
            // what that snapshot lacks. Two or more make it read the newest snapshot instead.
            #expect(found.count == differences, "\(commits) commits: \(found)")
            if differences == 1 { #expect(found.first?.detail.contains("not indexed: added.txt") == true, "\(found)") }
        }
    }
}

/// Root reads every folder whatever its mode, so these builds run as `nobody`, who owns the tree
/// and the index: `chmod 000` then stops the build's reads as it would stop a user's.
@Suite("Reliability: folders that become unreadable", .enabled(if: runsAsRoot, "running a command as another user needs root"))
struct UnreadableFolderTests {
    /// A tree owned by `nobody`: a folder of bundles, two more bundles and one that will go.
    static func fixture() throws -> BundleFixture {
        let f = try BundleFixture([
            "Apps/Phone.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.phone"]),
            "Apps/Phone.app/icon.png": "",
            "Notes.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.notes"]),
            "Notes.app/fr.lproj/Localizable.strings": "",
            "Notes.app/note.txt": "",
            "Mail.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.mail"]),
            "Mail.app/mail.png": "",
            "Gone.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.gone"]),
        ])
        #expect(try run(["chown", "-R", "65534:65534", f.root]).status == 0)
        return f
    }

    static let hidden = ["Apps", "Notes.app/fr.lproj", "Mail.app"]

    @Test("a root that a watcher run as nobody cannot read for a while: what changed meanwhile is read once it can")
    func rootReadableAgain() throws {
        let f = try Self.fixture()
        let log = makeTempDirectory(prefix: "watch-log") + "/log"
        defer { try? FileManager.default.removeItem(atPath: (log as NSString).deletingLastPathComponent) }
        FileManager.default.createFile(atPath: log, contents: nil)
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        watcher.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", bundleidxBinary, "watch", f.root, "--index", f.indexPath]
        watcher.standardError = FileHandle(forWritingAtPath: log)
        try watcher.run()
        defer { watcher.interrupt(); watcher.waitUntilExit() }
        var synced = false
        for _ in 0..<100 where !synced { synced = (try? run([bundleidxBinary, "sync", f.root, "--timeout", "1"]).status) == 0 }
        #expect(synced, "the watcher answers sync")
        #expect(chmod(f.root, 0) == 0)
        try FileManager.default.createDirectory(atPath: f.root + "/New.app", withIntermediateDirectories: false)
        try Data(infoPlist(["CFBundleIdentifier": "com.example.new"]).utf8).write(to: URL(fileURLWithPath: f.root + "/New.app/Info.plist"))
        // The batch finds New.app hidden (no sync: the watcher could not remove its cookie).
        Thread.sleep(forTimeInterval: 0.5)
        #expect(chmod(f.root, 0o755) == 0)
        #expect(try run([bundleidxBinary, "sync", f.root, "--timeout", "20"]).status == 0)
        let listed = try run([bundleidxBinary, "bundles", "--index", f.indexPath])
        #expect(listed.stdout.contains(f.root + "/New.app"), "New.app, made while the root could not be read, is indexed once it can: \(listed)")
    }

    @Test("the folder above a root that a watcher run as nobody cannot search for a while: what changed meanwhile is read once it can")
    func rootParentReadableAgain() throws {
        let f = try Self.fixture()
        let root = f.root + "/Apps"
        let log = makeTempDirectory(prefix: "watch-log") + "/log"
        defer { try? FileManager.default.removeItem(atPath: (log as NSString).deletingLastPathComponent) }
        FileManager.default.createFile(atPath: log, contents: nil)
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        watcher.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", bundleidxBinary, "watch", root, "--index", f.indexPath]
        watcher.standardError = FileHandle(forWritingAtPath: log)
        try watcher.run()
        defer { watcher.interrupt(); watcher.waitUntilExit() }
        var synced = false
        for _ in 0..<100 where !synced { synced = (try? run([bundleidxBinary, "sync", root, "--timeout", "1"]).status) == 0 }
        #expect(synced, "the watcher answers sync")
        // The root's parent is outside the root: before, its mode changes made no event at all.
        #expect(chmod(f.root, 0) == 0)
        try FileManager.default.createDirectory(atPath: root + "/New.app", withIntermediateDirectories: false)
        try Data(infoPlist(["CFBundleIdentifier": "com.example.new"]).utf8).write(to: URL(fileURLWithPath: root + "/New.app/Info.plist"))
        Thread.sleep(forTimeInterval: 0.5)
        #expect(chmod(f.root, 0o755) == 0)
        #expect(try run([bundleidxBinary, "sync", root, "--timeout", "20"]).status == 0)
        let listed = try run([bundleidxBinary, "bundles", "--index", f.indexPath])
        #expect(listed.stdout.contains(root + "/New.app") && listed.stdout.contains(root + "/Phone.app"),
                "New.app, made while the root's parent could not be searched, is indexed once it can: \(listed)")
    }

    /// Makes the three folders unreadable and deletes Gone.app.
    static func hideAndDelete(_ f: BundleFixture) throws {
        for dir in hidden { #expect(chmod(f.root + "/" + dir, 0) == 0) }
        try FileManager.default.removeItem(atPath: f.root + "/Gone.app")
    }

    /// Every bundle's lookups still answer; Gone.app is gone.
    static func expectKept(_ f: BundleFixture, _ comment: String) throws {
        func query(_ args: [String]) throws -> Int32 {
            try SharedIndexTests.asNobody([bundleidxBinary, "query"] + args + ["--index", f.indexPath]).status
        }
        #expect(try query(["com.example.phone", "icon", "--type", "png"]) == 0, "\(comment)")
        #expect(try query(["com.example.mail", "mail", "--type", "png"]) == 0, "\(comment)")
        #expect(try query(["com.example.notes", "Localizable", "--type", "strings", "--lang", "fr"]) == 0, "\(comment)")
        #expect(try query(["com.example.notes", "note", "--type", "txt"]) == 0, "\(comment)")
        // A bundle that is gone is still removed.
        let listed = try SharedIndexTests.asNobody([bundleidxBinary, "bundles", "--index", f.indexPath]).stdout
        #expect(!listed.contains("Gone.app") && listed.contains("Phone.app") && listed.contains("Mail.app"),
                "\(comment): \(listed)")
    }

    @Test("a bundle folder, a folder of bundles and a folder inside a bundle made unreadable keep their records, with a warning")
    func unreadableFoldersKeepTheirRecords() throws {
        let f = try Self.fixture()
        func build() throws -> (status: Int32, stdout: String, stderr: String) {
            try SharedIndexTests.asNobody([bundleidxBinary, "build", f.root, "--index", f.indexPath])
        }
        #expect(try build().status == 0)
        try Self.hideAndDelete(f)
        defer { for dir in Self.hidden { chmod(f.root + "/" + dir, 0o755) } }
        let rebuilt = try build()
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(rebuilt.stderr.contains("could not be read in full; the index keeps what it held"), "\(rebuilt.stderr)")
        try Self.expectKept(f, "after build")
    }

    @Test("a folder unreadable when its bundle was first indexed is read by the next build once it is readable")
    func readableAgain() throws {
        let f = try Self.fixture()
        let folder = f.root + "/Notes.app/fr.lproj"
        #expect(chmod(folder, 0) == 0)
        defer { chmod(folder, 0o755) }
        // Stamps are trusted only once settled: without the wait the second build would read
        // the bundle again whatever its stamps hold.
        waitUntilSettled()
        func build() throws -> Int32 {
            try SharedIndexTests.asNobody([bundleidxBinary, "build", f.root, "--index", f.indexPath]).status
        }
        func frenchTable() throws -> Int32 {
            try SharedIndexTests.asNobody([bundleidxBinary, "query", "com.example.notes", "Localizable", "--type", "strings",
                                           "--lang", "fr", "--index", f.indexPath]).status
        }
        #expect(try build() == 0)
        #expect(try frenchTable() != 0, "not indexed while unreadable")
        // `chmod` changes no modification time, only the folder's change time, which its stamp holds.
        #expect(chmod(folder, 0o755) == 0)
        waitUntilSettled()
        #expect(try build() == 0)
        #expect(try frenchTable() == 0, "indexed once readable")
    }

    @Test("a bundle's Contents folder, outside its walked tree, unreadable and then readable again")
    func contentsReadableAgain() throws {
        let f = try BundleFixture(["Mac.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.mac"]),
                                   "Mac.app/Contents/Resources/icon.png": ""])
        #expect(try run(["chown", "-R", "65534:65534", f.root]).status == 0)
        let contents = f.root + "/Mac.app/Contents"
        func build() throws -> (status: Int32, stdout: String, stderr: String) {
            waitUntilSettled()
            return try SharedIndexTests.asNobody([bundleidxBinary, "build", f.root, "--index", f.indexPath])
        }
        func icon() throws -> Int32 {
            try SharedIndexTests.asNobody([bundleidxBinary, "query", "com.example.mac", "icon", "--type", "png",
                                           "--index", f.indexPath]).status
        }
        #expect(chmod(contents, 0) == 0)
        defer { chmod(contents, 0o755) }
        let hidden = try build()
        #expect(hidden.status == 0 && hidden.stderr.contains("unreadable directory skipped"), "\(hidden.stderr)")
        #expect(try icon() != 0)
        #expect(chmod(contents, 0o755) == 0)
        #expect(try build().status == 0)
        #expect(try icon() == 0, "read once readable")
        #expect(try SharedIndexTests.asNobody([bundleidxBinary, "verify", f.root, "--index", f.indexPath]).status == 0)
    }

    @Test("an unreadable Resources, walked tree and Info.plist folder at once, is warned about once")
    func oneWarningForOneFolder() throws {
        let f = try BundleFixture(["Old.bundle/Resources/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.old"])])
        #expect(try run(["chown", "-R", "65534:65534", f.root]).status == 0)
        let resources = f.root + "/Old.bundle/Resources"
        #expect(chmod(resources, 0) == 0)
        defer { chmod(resources, 0o755) }
        let built = try SharedIndexTests.asNobody([bundleidxBinary, "build", f.root, "--verbose", "--index", f.indexPath])
        #expect(built.status == 0)
        #expect(built.stderr.components(separatedBy: "unreadable directory skipped: \(resources):").count == 2, "\(built.stderr)")
    }

    @Test("a watcher keeps the records of folders that became unreadable, warns in its log, and so does its catch-up")
    func watcherKeepsUnreadableRecords() throws {
        let f = try Self.fixture()
        let logs = makeTempDirectory(prefix: "watch-log")
        defer { try? FileManager.default.removeItem(atPath: logs) }
        /// A watcher run as `nobody`, its log in `logs/name`; stopped with SIGINT by `stop`.
        func watch(_ name: String) throws -> Process {
            FileManager.default.createFile(atPath: logs + "/" + name, contents: nil)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            p.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", bundleidxBinary, "watch", f.root,
                           "--index", f.indexPath]
            p.standardError = FileHandle(forWritingAtPath: logs + "/" + name)
            try p.run()
            var synced = false
            for _ in 0..<100 where !synced {
                synced = (try? run([bundleidxBinary, "sync", f.root, "--timeout", "1"]).status) == 0
            }
            #expect(synced, "the watcher answers sync")
            return p
        }
        func stop(_ p: Process, _ name: String) throws -> String {
            p.interrupt()
            p.waitUntilExit()
            return try String(contentsOfFile: logs + "/" + name, encoding: .utf8)
        }
        let live = try watch("live")
        try Self.hideAndDelete(f)
        defer { for dir in Self.hidden { chmod(f.root + "/" + dir, 0o755) } }
        #expect(try run([bundleidxBinary, "sync", f.root, "--timeout", "20"]).status == 0)
        try Self.expectKept(f, "live watcher")
        // A change below a folder nobody may search still reaches the watcher (its watches
        // stay): the bundle it cannot reach (EACCES) is kept, not taken for gone.
        _ = FileManager.default.createFile(atPath: f.root + "/Apps/Phone.app/new.png", contents: nil)
        #expect(try run([bundleidxBinary, "sync", f.root, "--timeout", "20"]).status == 0)
        try Self.expectKept(f, "a change below the unreadable folder")
        let log = try stop(live, "live")
        for bundle in ["Apps/Phone.app", "Notes.app", "Mail.app"] {
            #expect(log.contains("\(f.root)/\(bundle) could not be read in full; the index keeps what it held for it"),
                    "\(bundle): \(log)")
        }
        // A watcher started while the folders are unreadable catches up without dropping them.
        let restarted = try watch("restarted")
        try Self.expectKept(f, "after the catch-up")
        let caughtUp = try stop(restarted, "restarted")
        #expect(caughtUp.contains("could not be read in full; the index keeps what it held for it"), "\(caughtUp)")
    }
}
