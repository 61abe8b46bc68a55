// The watches of followed links' targets outside the roots (fifteenth session): dropped when no
// bundle links there any more, at the end of the batch that found it so.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Watcher: link targets' watches", .serialized, .tags(.slow), .enabled(if: TestPlan.runsSlowSuites, "quick run (tools/test.sh --quick)"))
struct LinkTargetWatchTests {
    @Test("a link out of a bundle made to lead elsewhere again and again: the old targets' watches go, and all of them with the bundle")
    func linkTargetsUnwatched() throws {
        let outside = makeTempDirectory(prefix: "watch-targets")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        for target in ["a", "b"] {
            for i in 0..<5 { try FileManager.default.createDirectory(atPath: outside + "/\(target)/d\(i)", withIntermediateDirectories: true) }
            FileManager.default.createFile(atPath: outside + "/\(target)/x.png", contents: Data())
        }
        let files = ["Ink.app/Ink": "", "Ink.app/Info.plist": infoPlist([:])]
        let plain = try WatcherHarness()
        let without = plain.watcher.tree.count
        plain.stop()
        let h = try WatcherHarness(files, links: ["Ink.app/Shared": outside + "/a"])
        defer { h.stop() }
        let first = h.watcher.tree.count
        for target in ["b", "a", "b", "a"] {
            #expect(unlink(h.root + "/Ink.app/Shared") == 0 && symlink(outside + "/" + target, h.root + "/Ink.app/Shared") == 0)
            try h.sync()
        }
        // Before, each retarget kept the old target's six watches until an overflow's rescan.
        #expect(h.watcher.tree.count == first, "\(h.watcher.tree.count) watches, \(first) at the start")
        #expect(try h.bundle("Ink.app")?.rel("x", "png", dir: "Shared") == "Shared/x.png")
        try FileManager.default.removeItem(atPath: h.root + "/Ink.app")
        try h.sync()
        #expect(h.watcher.tree.count == without, "\(h.watcher.tree.count) watches once the bundle is gone, \(without) for an empty root")
        #expect(h.watcher.linkedBy.isEmpty && h.watcher.linkTargets.isEmpty)
    }

    @Test("a link target nobody links to any more is unwatched at the batch's end, not at once: a bundle renamed keeps it watched")
    func unlinkedTargetsUnwatchedAtTheBatchEnd() throws {
        let outside = makeTempDirectory(prefix: "watch-renamed")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        let h = try WatcherHarness(["X.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.x"])],
                                   links: ["X.app/Resources": outside])
        h.stop()   // the loop is over: the watcher's state is the test's
        let w = h.watcher
        #expect(w.tree.isWatched(outside))
        // A rename: the bundle is found gone under its old name, then read under the new one.
        // Dropped at once, the target's watches came back only after the new name's scan, and a
        // file written there in between made no event (a review's repro: 3 of 3 runs).
        w.forgetLinks(of: h.root + "/X.app")
        #expect(w.tree.isWatched(outside))
        w.noteLinks(of: h.root + "/Y.app", to: [outside])
        w.unwatchUnlinkedTargets()
        #expect(w.tree.isWatched(outside))
        w.forgetLinks(of: h.root + "/Y.app")
        w.unwatchUnlinkedTargets()
        #expect(!w.tree.isWatched(outside))
    }

    @Test("a root's folder inside a followed link's target outside the roots: a change there reads the linking bundle again")
    func rootInsideALinkTarget() throws {
        // X.app's Resources lead to ext; the root cur leads to ext/sub, whose events name it cur.
        let h = try WatcherHarness(["q/X.app/Info.plist": infoPlist([:]), "ext/sub/a.png": "", "ext/sub2/c.png": ""],
                                   links: ["q/X.app/Resources": "../../ext", "cur": "ext/sub"], watching: ["q", "cur"])
        defer { h.stop() }
        #expect(try h.bundle("q/X.app")?.rel("a", "png", dir: "Resources/sub") == "Resources/sub/a.png")
        try h.write("ext/sub/new.png")
        try h.sync("cur")
        #expect(try h.bundle("q/X.app")?.rel("new", "png", dir: "Resources/sub") == "Resources/sub/new.png")
        #expect(try h.verify() == [])
        // The root made to lead to another folder of the target (a release switched).
        #expect(unlink(h.root + "/cur") == 0 && symlink("ext/sub2", h.root + "/cur") == 0)
        try h.sync("cur")
        try h.write("ext/sub2/new.png")
        try h.sync("cur")
        #expect(try h.bundle("q/X.app")?.rel("new", "png", dir: "Resources/sub2") == "Resources/sub2/new.png")
        #expect(try h.verify() == [])
    }

    @Test("a new bundle's link target outside the roots: a file written there between the scan and the target's watches is indexed")
    func newTargetChangedBeforeItsWatch() throws {
        let outside = makeTempDirectory(prefix: "watch-new-target")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        for folder in ["res", "other"] {
            try FileManager.default.createDirectory(atPath: outside + "/" + folder, withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: outside + "/\(folder)/a.png", contents: Data())
        }
        // Old.app links next to the new target: the way there is watched already, so the new
        // bundle's stamps' lookups add no watch (those had the check before).
        try Self.expectLateWriteSeen(late: outside + "/res/late.png", target: outside + "/res", in: "Resources",
                                     oldLink: outside + "/other")
    }

    @Test("a root given through a link below another root given through a link: a change in a target there reads the linking bundle again")
    func nestedLinkRoots() throws {
        // cur -> ext/sub and cur/in -> ../../ext2/x are both roots; X2.app's Resources lead to
        // ext2. Events in ext2/x are named cur/in/…; through the outer root cur, that path goes
        // through the link in again and names no target.
        let h = try WatcherHarness(["q/X2.app/Info.plist": infoPlist([:]), "ext/sub/a.png": "", "ext2/x/b.png": ""],
                                   links: ["q/X2.app/Resources": "../../ext2", "cur": "ext/sub", "ext/sub/in": "../../ext2/x"],
                                   watching: ["q", "cur", "cur/in"])
        defer { h.stop() }
        #expect(try h.bundle("q/X2.app")?.rel("b", "png", dir: "Resources/x") == "Resources/x/b.png")
        try h.write("ext2/x/new.png")
        try h.sync("cur/in")
        #expect(try h.bundle("q/X2.app")?.rel("new", "png", dir: "Resources/x") == "Resources/x/new.png")
        #expect(try h.verify() == [])
    }

    @Test("reading again a bundle that alone links to a watched target is not that target's first watch")
    func readingAgainIsNoFirstWatch() throws {
        let outside = makeTempDirectory(prefix: "watch-first")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        FileManager.default.createFile(atPath: outside + "/a.png", contents: Data())
        let h = try WatcherHarness(["B.app/Info.plist": infoPlist([:])], links: ["B.app/Resources": outside])
        h.stop()
        let bundle = h.root + "/B.app"
        let target = try #require(FileSystem.realPath(outside))
        // Before, B.app's own links were dropped first, so each reading again counted as the
        // target's first watch, and a stamp that never settles (a time in the future, or in
        // whole seconds) had the bundle read again ~50 times a second.
        #expect(h.watcher.noteLinks(of: bundle, to: [target]) == false)
        #expect(h.watcher.noteLinks(of: bundle, to: [target]) == false)
    }

    @Test("a target the watcher cannot watch is no first watch: reading its bundle again does not queue it again")
    func unwatchableTargetIsNoFirstWatch() throws {
        let h = try WatcherHarness(["B.app/Info.plist": infoPlist([:])])
        h.stop()
        // A folder that is not there takes no watch; before, its missing watch counted at every
        // reading again, and an unsettled time (a target mode 0711 to a watcher run as nobody,
        // with a ctime in the future) had the bundle read again ~50 times a second.
        let missing = makeTempDirectory(prefix: "watch-none") + "/none"
        #expect(h.watcher.noteLinks(of: h.root + "/B.app", to: [missing]) == false)
        #expect(h.watcher.noteLinks(of: h.root + "/B.app", to: [missing]) == false)
    }

    @Test("a new link target watched before for a lookup alone: its folders below get their watches now, so the bundle is checked")
    func targetWatchedForALookup() throws {
        let outside = makeTempDirectory(prefix: "watch-lookup")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        for folder in ["T/sub", "T/a"] { try FileManager.default.createDirectory(atPath: outside + "/" + folder, withIntermediateDirectories: true) }
        // Old.app's link leads into T/sub: T is on its way, watched alone (one watch, no tree).
        try Self.expectLateWriteSeen(late: outside + "/T/a/late.png", target: outside + "/T", in: "Resources/a",
                                     oldLink: outside + "/T/sub")
    }

    /// Old.app, its Resources a link to `oldLink`, is watched; New.app, its Resources a link to
    /// `target`, is made aside and moved in (one event, one scan). Through the debug-build seam,
    /// `late` is written after New.app's scan and before its target's watches (the window
    /// `noteOutsideFolders` closes); New.app must find it, in its folder `folder`, after a sync.
    static func expectLateWriteSeen(late: String, target: String, in folder: String, oldLink: String) throws {
        let writeLate: (String) -> Void = { bundle in
            if bundle.hasSuffix("/New.app") && !FileManager.default.fileExists(atPath: late) {
                FileManager.default.createFile(atPath: late, contents: Data())
            }
        }
        let h = try WatcherHarness(["Old.app/Info.plist": infoPlist([:])], links: ["Old.app/Resources": oldLink],
                                   configure: { $0.beforeWatchingTargets = writeLate })
        defer { h.stop() }
        let aside = makeTempDirectory(prefix: "watch-aside")
        defer { try? FileManager.default.removeItem(atPath: aside) }
        let staged = aside + "/New.app"
        try FileManager.default.createDirectory(atPath: staged, withIntermediateDirectories: false)
        try infoPlist([:]).write(toFile: staged + "/Info.plist", atomically: false, encoding: .utf8)
        #expect(symlink(target, staged + "/Resources") == 0)
        #expect(rename(staged, h.root + "/New.app") == 0)
        try h.sync()
        #expect(FileManager.default.fileExists(atPath: late), "the seam ran")
        // late.png was written after the first sync began (in the batch that answered it).
        try h.sync()
        #expect(try h.bundle("New.app")?.rel("late", "png", dir: folder) == folder + "/late.png")
        #expect(try h.verify() == [])
    }
}
