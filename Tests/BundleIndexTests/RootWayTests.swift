// The way to a root (fifteenth session): a root given as a link made to lead elsewhere, or a
// folder above a root replaced, is followed where its path leads now, as a build follows it.
// Before, the watcher kept watching the old folder: its bundles stayed, the new ones never came,
// and changes in the old folder were indexed under the root's path.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Watcher: the way to a root", .serialized, .tags(.slow), .enabled(if: TestPlan.runsSlowSuites, "quick run (tools/test.sh --quick)"))
struct RootWayTests {
    static func app(_ name: String) -> [String: String] { RootMoveTests.app(name) }

    /// Makes `folder` hold a bundle `name`, with an Info.plist and one image.
    static func makeApp(_ name: String, in folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder + "/" + name, withIntermediateDirectories: true)
        try Data(infoPlist(["CFBundleIdentifier": "org.example.\(name.count)"]).utf8).write(to: URL(fileURLWithPath: folder + "/" + name + "/Info.plist"))
        FileManager.default.createFile(atPath: folder + "/" + name + "/a.png", contents: Data())
    }

    /// Waits until `condition` holds, at most five seconds.
    static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        for _ in 0..<100 {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }

    @Test("a root given as a link made to lead elsewhere by a rename (`ln -sfn` today, `mv -T`): the new folder is indexed and watched, the old one no more")
    func linkRetargetedByARename() throws {
        let h = try WatcherHarness(Self.app("A.app"), rootIsALink: true)
        defer { h.stop() }
        let other = h.root + "-other"
        defer { try? FileManager.default.removeItem(atPath: other) }
        try Self.makeApp("B.app", in: other)
        Self.retarget(h.root, to: other)
        try h.sync()
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("A.app") == nil && h.bundle("B.app") != nil)
        // The new folder is watched; the old one no longer counts.
        try Self.makeApp("C.app", in: other)
        try Self.makeApp("D.app", in: h.root + "-real")
        try h.sync()
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("C.app") != nil && h.bundle("D.app") == nil)
    }

    @Test("a root given as a link removed, then made again to lead elsewhere (`ln -sfn` of old): its bundles go, then come from the new folder")
    func linkRemovedAndMadeAgain() throws {
        let h = try WatcherHarness(Self.app("A.app"), rootIsALink: true)
        defer { h.stop() }
        let other = h.root + "-other"
        defer { try? FileManager.default.removeItem(atPath: other) }
        try Self.makeApp("B.app", in: other)
        #expect(unlink(h.root) == 0)
        #expect(try Self.eventually { try h.bundle("A.app") == nil }, "the bundles of a root that is gone went")
        #expect(symlink(other, h.root) == 0)
        try h.sync()
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("B.app") != nil)
    }

    @Test("the folder holding a root replaced by a rename: the root is followed into the new folder, the old one no more")
    func folderAboveReplaced() throws {
        // The watched root is `O` in the harness's folder, which is what is replaced.
        let h = try WatcherHarness(Self.app("O/A.app"), watching: ["O"])
        defer { h.stop() }
        let old = h.root + ".old", new = h.root + ".new"
        defer { try? FileManager.default.removeItem(atPath: old) }
        try Self.makeApp("B.app", in: new + "/O")
        #expect(rename(h.root, old) == 0 && rename(new, h.root) == 0)
        try h.sync("O")
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("O/A.app") == nil && h.bundle("O/B.app") != nil)
        try Self.makeApp("C.app", in: old + "/O")
        try Self.makeApp("D.app", in: h.root + "/O")
        try h.sync("O")
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("O/C.app") == nil && h.bundle("O/D.app") != nil)
    }

    /// Makes the link `link` (relative to the harness's folder) lead to `target` by a rename, as
    /// `ln -sfn` does today.
    static func retarget(_ h: WatcherHarness, _ link: String, to target: String) {
        retarget(h.root + "/" + link, to: target)
    }

    /// Makes the link at `path` lead to `target` by a rename (a root given as a link: the
    /// harness's root itself).
    static func retarget(_ path: String, to target: String) {
        #expect(symlink(target, path + ".new") == 0 && rename(path + ".new", path) == 0)
    }

    static func info(_ id: String) -> String { infoPlist(["CFBundleIdentifier": "org.example.\(id)"]) }

    @Test("rolled back to a release the other one's links pointed into, whose folders were watched under their own paths: the root takes them over")
    func rollbackToAFolderWatchedForLookups() throws {
        let h = try WatcherHarness(["rel1/A.app/Info.plist": Self.info("a"), "rel2/A.app/x.png": ""],
                                   links: ["rel2/A.app/Info.plist": "../../rel1/A.app/Info.plist", "cur": "rel2"], watching: ["cur"])
        defer { h.stop() }
        Self.retarget(h, "cur", to: "rel1")
        try h.sync("cur")
        try RootMoveTests().expectLikeAFreshBuild(h)
        // Before, the root's folders kept no watch of their own: a sync now timed out.
        try h.write("cur/New.app/Info.plist", Self.info("new"))
        try h.sync("cur")
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("cur/New.app") != nil)
    }

    @Test("a root led from a folder to one inside it, through a link further along its way, which is then retargeted too")
    func wayThroughTheOldRootsFolder() throws {
        let h = try WatcherHarness(["a/A.app/Info.plist": Self.info("a"), "a/b1/B1.app/Info.plist": Self.info("b1"),
                                    "a/b2/B2.app/Info.plist": Self.info("b2")],
                                   links: ["a/b": "b1", "cur": "a"], watching: ["cur"])
        defer { h.stop() }
        Self.retarget(h, "cur", to: "a/b")
        try h.sync("cur")
        // `a`, now on the way, was the old root's folder: its watch went with the old root's.
        Self.retarget(h, "a/b", to: "b2")
        try h.sync("cur")
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("cur/B2.app") != nil)
    }

    @Test("a root link made to lead elsewhere and back within one batch: a folder made meanwhile is watched where it is")
    func backAndForthWithinABatch() throws {
        var options = IndexWatcher.Options()
        options.settle = 0.4
        options.maxDelay = 3
        let h = try WatcherHarness(["rel1/A.app/Info.plist": Self.info("a"), "rel2/N.app/x.png": ""],
                                   links: ["cur": "rel1"], options: options, watching: ["cur"])
        defer { h.stop() }
        Self.retarget(h, "cur", to: "rel2")
        Thread.sleep(forTimeInterval: 0.1)
        // Watched through `cur` as it led at that moment: rel2's N.app.
        try FileManager.default.createDirectory(atPath: h.root + "/rel1/N.app", withIntermediateDirectories: false)
        Thread.sleep(forTimeInterval: 0.1)
        Self.retarget(h, "cur", to: "rel1")
        try h.sync("cur")
        try h.write("rel1/N.app/Info.plist", Self.info("n"))
        try h.sync("cur")
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("cur/N.app") != nil)
    }

    @Test("a root link made anew to lead where it led (`ln -sfn` run again): nothing is read again")
    func sameTargetRelink() throws {
        let h = try WatcherHarness(Self.app("A.app"), rootIsALink: true)
        defer { h.stop() }
        try h.sync()
        let generation = try IndexReader(path: h.indexPath).generation()
        Self.retarget(h.root, to: h.root + "-real")
        Thread.sleep(forTimeInterval: 0.5)
        // Before, the root was replaced and every bundle read again, in a batch of its own.
        #expect(try IndexReader(path: h.indexPath).generation() == generation)
        try h.write("B.app/Info.plist", Self.info("b"))
        try h.sync()
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("B.app") != nil)
    }

    @Test("a sync whose cookie the watcher has not read yet when the root link is made to lead elsewhere: it returns once the watcher caught up")
    func syncAcrossARetarget() throws {
        let pause = makeTempDirectory(prefix: "pause") + "/pause"
        defer { try? FileManager.default.removeItem(atPath: (pause as NSString).deletingLastPathComponent) }
        let h = try WatcherHarness(Self.app("A.app"), rootIsALink: true) { $0.pauseFile = pause }
        defer { h.stop() }
        let other = h.root + "-other"
        defer { try? FileManager.default.removeItem(atPath: other) }
        try Self.makeApp("B.app", in: other)
        FileManager.default.createFile(atPath: pause, contents: nil)
        // The reader thread looks for the pause file between polls of up to 100 ms.
        Thread.sleep(forTimeInterval: 0.3)
        let synced = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Error?
        let waiting = Thread {
            do { try h.sync() } catch { outcome = error }
            synced.signal()
        }
        waiting.start()
        Thread.sleep(forTimeInterval: 0.3)
        Self.retarget(h.root, to: other)
        Thread.sleep(forTimeInterval: 0.3)
        try FileManager.default.removeItem(atPath: pause)
        // Before, the watcher removed the cookie by its path, which led into the new folder:
        // the sync timed out although the watcher had applied it.
        #expect(synced.wait(timeout: .now() + 20) == .success)
        #expect(outcome == nil, "\(String(describing: outcome))")
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("B.app") != nil)
    }

    @Test("a root link into another root's tree, retargeted away: the other root keeps its watches there")
    func linkRootLeavesAnotherRoot() throws {
        let h = try WatcherHarness(["r1/sub/A.app/Info.plist": Self.info("a"), "r1/B.app/Info.plist": Self.info("b"),
                                    "o/C.app/Info.plist": Self.info("c")],
                                   links: ["cur": "r1/sub"], watching: ["cur", "r1"])
        defer { h.stop() }
        Self.retarget(h, "cur", to: "o")
        try h.sync("cur")
        try RootMoveTests().expectLikeAFreshBuild(h)
        try h.write("r1/sub/N.app/Info.plist", Self.info("n"))
        try h.sync("r1")
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("r1/sub/N.app") != nil)
    }

    @Test("a root whose way passes through another root's folder: that root retargeted, then the way's own link")
    func wayThroughAnotherRoot() throws {
        let h = try WatcherHarness(["rel1/A.app/Info.plist": Self.info("a"), "rel2/A2.app/Info.plist": Self.info("a2"),
                                    "o1/apps/X.app/Info.plist": Self.info("x"), "o2/apps/Y.app/Info.plist": Self.info("y")],
                                   links: ["rel1/l": "../o1", "cur": "rel1"], watching: ["cur", "rel1/l/apps"])
        defer { h.stop() }
        Self.retarget(h, "cur", to: "rel2")
        try h.sync("cur")
        Self.retarget(h, "rel1/l", to: "../o2")
        try h.sync("rel1/l/apps")
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("rel1/l/apps/Y.app") != nil)
    }

    @Test("a sync waiting while its root link is made to lead elsewhere waits for its own cookie (no watcher: it times out)")
    func syncWaitsInTheFolderItStartedIn() throws {
        let fixture = try BundleFixture(["rel1/A.app/Info.plist": Self.info("a"), "rel2/x.png": ""], links: ["cur": "rel1"])
        let root = fixture.root + "/cur"
        let retarget = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            _ = symlink("rel2", root + ".new")
            _ = rename(root + ".new", root)
        }
        retarget.start()
        #expect(throws: BundleIndexError.self) { try IndexWatcher.sync(root: root, timeout: 1.5) }
    }

    /// Whether this process may mount a tmpfs (root, outside a container that forbids it).
    static let canMount: Bool = {
        let dir = makeTempDirectory(prefix: "mount-probe")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard (try? run(["mount", "-t", "tmpfs", "none", dir]).status) == 0 else { return false }
        return (try? run(["umount", dir]).status) == 0
    }()

    @Test("a file system mounted over a folder on a root's way, then unmounted: each time the root is read where its path leads",
          .enabled(if: canMount, "mounting a tmpfs needs root"))
    func mountOverTheWay() throws {
        let h = try WatcherHarness(["m/apps/A.app/Info.plist": Self.info("a")], watching: ["m/apps"])
        defer { h.stop() }
        let point = h.root + "/m"
        #expect(try run(["mount", "-t", "tmpfs", "none", point]).status == 0)
        var mounted = true
        defer { if mounted { _ = try? run(["umount", point]) } }
        try h.write("m/apps/B.app/Info.plist", Self.info("b"))
        try h.sync("m/apps")
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("m/apps/B.app") != nil && h.bundle("m/apps/A.app") == nil)
        #expect(try run(["umount", point]).status == 0)
        mounted = false
        try h.sync("m/apps")
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("m/apps/A.app") != nil && h.bundle("m/apps/B.app") == nil)
    }

    @Test("a file system mounted on a folder in a root, then unmounted: what it shows is indexed, and watched",
          .enabled(if: canMount, "mounting a tmpfs needs root"))
    func mountInARoot() throws {
        let h = try WatcherHarness(["d/A.app/Info.plist": Self.info("a"), "T.app/Info.plist": Self.info("t")])
        defer { h.stop() }
        let point = h.root + "/d"
        #expect(try run(["mount", "-t", "tmpfs", "none", point]).status == 0)
        var mounted = true
        defer { if mounted { _ = try? run(["umount", point]) } }
        try h.sync()
        try RootMoveTests().expectLikeAFreshBuild(h)
        try h.write("d/B.app/Info.plist", Self.info("b"))
        try h.sync()
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("d/B.app") != nil && h.bundle("d/A.app") == nil)
        #expect(try run(["umount", point]).status == 0)
        mounted = false
        try h.sync()
        try RootMoveTests().expectLikeAFreshBuild(h)
        #expect(try h.bundle("d/A.app") != nil && h.bundle("d/B.app") == nil)
    }
}
