// `bundleidx sync`'s cookie travels through the watcher's queue; the watcher takes it out of its
// folder before the batch that covers it reads anything, and answers it after the commit. Before,
// it removed the cookie after the commit, which changed the folder's change time once more: a root
// that is itself a bundle, or a folder a bundle's followed link leads to, kept a stale stamp, and
// `verify` reported "1 records differ" after every sync. A review of that change found a thousand
// cookies exhausting the watcher's descriptors and answers any user could forge; tested here too.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Watcher: sync cookies", .serialized, .tags(.slow), .enabled(if: TestPlan.runsSlowSuites, "quick run (tools/test.sh --quick)"))
struct SyncCookieTests {
    @Test("syncs of a root that is itself a bundle leave its records as a build writes them")
    func rootIsABundle() throws {
        let h = try WatcherHarness(["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.a"]), "A.app/x.png": ""],
                                   watching: ["A.app"])
        defer { h.stop() }
        for round in 0..<3 {
            try h.sync("A.app")
            #expect(try h.verify() == [], "after sync \(round + 1)")
        }
        try h.write("A.app/y.png")
        try h.sync("A.app")
        #expect(try h.verify() == [])
        #expect(try h.bundle("A.app")?.rel("y", "png") == "y.png")
    }

    @Test("a sync of a root that a bundle's followed link leads to leaves that bundle's records right")
    func linkIntoARoot() throws {
        let h = try WatcherHarness(["q/Z.app/Info.plist": infoPlist([:]), "r/img.png": ""],
                                   links: ["q/Z.app/Resources": "../../r"], watching: ["q", "r"])
        defer { h.stop() }
        #expect(try h.bundle("q/Z.app")?.rel("img", "png") == "Resources/img.png")
        for round in 0..<2 {
            try h.sync("r")
            #expect(try h.verify() == [], "after sync \(round + 1)")
        }
    }

    @Test("a file linked under a cookie's name is never written to; only an empty file is removed")
    func linkedCookieNotWritten() throws {
        let h = try WatcherHarness(["A.app/Info.plist": infoPlist([:])])
        defer { h.stop() }
        let outside = makeTempDirectory(prefix: "cookie-target")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        // Empty, as a cookie is: only its other name tells it from one.
        try "".write(toFile: outside + "/hard", atomically: false, encoding: .utf8)
        try "kept".write(toFile: outside + "/soft", atomically: false, encoding: .utf8)
        let cookie = h.root + "/" + SyncCookie.answeredByBytes
        #expect(link(outside + "/hard", cookie + "hard") == 0)
        #expect(symlink(outside + "/soft", cookie + "soft") == 0)
        // A user's file named like a cookie, with content: never a sync's.
        try "mine".write(toFile: cookie + "full", atomically: false, encoding: .utf8)
        try h.sync()
        for (name, content) in [("hard", ""), ("soft", "kept")] {
            #expect(try String(contentsOfFile: outside + "/" + name, encoding: .utf8) == content, "\(name)")
        }
        // The empty file's second name goes, as a cookie would; the link and the file with
        // content stay (before, they were deleted after the commit).
        #expect(!FileManager.default.fileExists(atPath: cookie + "hard"))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: cookie + "soft")) == outside + "/soft")
        #expect(try String(contentsOfFile: cookie + "full", encoding: .utf8) == "mine")
    }

    @Test("a thousand cookies at once: the watcher takes sixteen per batch, answers them all, and still reads what changed")
    func manyCookies() throws {
        let h = try WatcherHarness(["A.app/Info.plist": infoPlist([:])])
        defer { h.stop() }
        // Half named as this version's syncs name them (taken, 16 a batch), half as a sync of
        // before does (left, removed after the commit).
        for i in 0..<1_000 {
            let prefix = i % 2 == 0 ? SyncCookie.answeredByBytes : SyncCookie.prefix
            FileManager.default.createFile(atPath: h.root + "/\(prefix)left-\(i)", contents: nil)
        }
        try h.write("B.app/Info.plist", infoPlist([:]))
        try h.sync()
        try h.sync()
        #expect(try h.bundle("B.app") != nil)
        let left = try FileManager.default.contentsOfDirectory(atPath: h.root).filter { $0.hasPrefix(SyncCookie.prefix) }
        #expect(left.isEmpty, "\(left.count) cookies left")
        #expect(try h.verify() == [])
    }

    @Test("a batch takes at most its share of cookies and leaves the rest, and a sync of before's cookie, to be removed after its commit")
    func cookiesTakenPerBatch() throws {
        let h = try WatcherHarness(["A.app/Info.plist": infoPlist([:])])
        h.stop()
        let folder = makeTempDirectory(prefix: "cookies")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // One named as a sync of before names it (it waits for the cookie to go, and took a
        // first byte for the answer), then 24 more named for bytes than a batch takes.
        let old = folder + "/\(SyncCookie.prefix)1-1-1"
        let paths = [old] + (0..<(ClaimedCookie.takenPerBatch + 24)).map { folder + "/\(SyncCookie.answeredByBytes)\($0)" }
        for path in paths { FileManager.default.createFile(atPath: path, contents: nil) }
        let claimed = h.watcher.claimCookies(paths, readingAgain: false)
        let taken = ClaimedCookie.takenPerBatch
        #expect(claimed.map(\.isTaken) == [false] + Array(repeating: true, count: taken)
                + Array(repeating: false, count: paths.count - 1 - taken))
        let there = paths.filter { FileManager.default.fileExists(atPath: $0) }
        #expect(there == [old] + Array(paths.dropFirst(1 + taken)), "the taken ones are removed first, the others stay")
        #expect(paths.allSatisfy { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0 == 0 },
                "nothing is written into a left cookie")
        h.watcher.finishCookies(claimed, committed: true)
        #expect(paths.allSatisfy { !FileManager.default.fileExists(atPath: $0) }, "all removed after the commit")
    }

    @Test("a folder named like a cookie is neither removed nor looked into: its bundles stay out of the index, as a build leaves them")
    func folderNamedLikeACookie() throws {
        let h = try WatcherHarness(["A.app/Info.plist": infoPlist([:])])
        defer { h.stop() }
        try h.write(SyncCookie.answeredByBytes + "dir/D.app/Info.plist", infoPlist([:]))
        try h.write(SyncCookie.prefix + "old/E.app/Info.plist", infoPlist([:]))
        try h.sync()
        try h.sync()
        #expect(try h.bundle(SyncCookie.answeredByBytes + "dir/D.app") == nil)
        #expect(try h.bundle(SyncCookie.prefix + "old/E.app") == nil)
        #expect(FileManager.default.fileExists(atPath: h.root + "/" + SyncCookie.prefix + "old/E.app/Info.plist"))
        #expect(try h.verify() == [])
    }

    @Test("a watcher limited to 128 descriptors answers 300 cookies and indexes a bundle made with them")
    func cookiesUnderADescriptorLimit() throws {
        let f = try BundleFixture(["A.app/Info.plist": infoPlist([:])])
        let watcher = try startLimitedWatcher(root: f.root, index: f.indexPath, openFiles: "128:128")
        defer { watcher.interrupt(); watcher.waitUntilExit() }
        for i in 0..<300 { FileManager.default.createFile(atPath: f.root + "/\(SyncCookie.prefix)left-\(i)", contents: nil) }
        try FileManager.default.createDirectory(atPath: f.root + "/B.app", withIntermediateDirectories: false)
        try infoPlist([:]).write(toFile: f.root + "/B.app/Info.plist", atomically: false, encoding: .utf8)
        #expect(try run([bundleidxBinary, "sync", f.root, "--timeout", "20"]).status == 0)
        let listed = try run([bundleidxBinary, "bundles", "--index", f.indexPath]).stdout
        #expect(listed.contains(f.root + "/B.app"), "\(listed)")
        #expect(try run([bundleidxBinary, "verify", "--index", f.indexPath]).status == 0)
    }

    @Test("another user cannot answer a sync: with no watcher it times out, whatever they write", .enabled(if: runsAsRoot, "needs root to run a command as nobody"))
    func answerNotForged() throws {
        let f = try BundleFixture(["A.app/Info.plist": infoPlist([:])])
        #expect(chmod(f.root, 0o755) == 0)
        let forger = Process()
        forger.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        // As nobody, for 3 s: append two bytes to every cookie there, and try to link it away.
        forger.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c",
                            "end=$(($(date +%s) + 3)); while [ $(date +%s) -lt $end ]; do for c in '\(f.root)'/.bundleidx-cookie-*; do "
                            + "printf ab >> \"$c\" 2>/dev/null; ln \"$c\" /tmp/forged-$$ 2>/dev/null; done; done; rm -f /tmp/forged-$$"]
        forger.standardError = FileHandle.nullDevice
        try forger.run()
        defer { forger.waitUntilExit() }
        #expect(throws: BundleIndexError.self) { try IndexWatcher.sync(root: f.root, timeout: 2) }
    }

    @Test("a folder named like a cookie made and removed in a root that is a bundle: its time is read again both times")
    func cookieMadeAndRemovedByAnother() throws {
        let h = try WatcherHarness(["A.app/Info.plist": infoPlist([:]), "A.app/x.png": ""], watching: ["A.app"])
        defer { h.stop() }
        let folder = h.root + "/A.app/" + SyncCookie.answeredByBytes + "dir"
        #expect(mkdir(folder, 0o755) == 0)
        try h.sync("A.app")
        #expect(try h.verify() == [], "made")
        // Removed by someone else: before, a cookie's removal was never looked at, and the
        // bundle kept its stale time (a sync removes its own when the watcher could not). No
        // sync here: its own cookie would have the bundle read again.
        let reader = try IndexReader(path: h.indexPath)
        let before = try reader.generation()
        #expect(rmdir(folder) == 0)
        let deadline = monotonicSeconds() + 5
        while try reader.generation() == before && monotonicSeconds() < deadline { usleep(10_000) }
        #expect(try h.verify() == [], "removed")
    }
}
