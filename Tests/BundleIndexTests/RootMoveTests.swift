// Roots that move (a review's adversarial cases, fourteenth session): a root that moved, or
// whose folder above moved, went away; it is watched and read again when it is back, and the
// watcher is not left degraded by one that came back with a rename.
import Foundation
import Logging
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Watcher: roots that move", .serialized, .tags(.slow), .enabled(if: TestPlan.runsSlowSuites, "quick run (tools/test.sh --quick)"))
struct RootMoveTests {
    static func app(_ name: String) -> [String: String] {
        ["\(name)/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.\(name.count)"]), "\(name)/a.png": ""]
    }

    /// The bundles of the watched index and of a fresh build of the same roots agree, and
    /// `verify` finds nothing.
    func expectLikeAFreshBuild(_ h: WatcherHarness, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fresh = h.root + "-fresh"
        defer { try? FileManager.default.removeItem(atPath: fresh) }
        _ = try IndexBuilder.build(roots: h.watched.filter { FileSystem.isDirectory($0) }, indexPath: fresh)
        let paths = { (index: String) in try IndexReader(path: index).bundles().map(\.bundlePath).sorted() }
        #expect(try paths(h.indexPath) == paths(fresh), sourceLocation: sourceLocation)
        #expect(try h.verify() == [], sourceLocation: sourceLocation)
    }

    @Test("a root moved into another root went away; made again, it is watched and read")
    func rootMovedIntoAnotherRoot() throws {
        let h = try WatcherHarness(Self.app("S/A.app").merging(Self.app("T/T.app")) { $1 }, options: WatcherHarness.quickRetry, watching: ["S", "T"])
        defer { h.stop() }
        try h.move("S", "T/S")
        try h.sync("T")
        let stats = try run([bundleidxBinary, "stats", "--index", h.indexPath]).stdout
        #expect(stats.contains("degraded") && stats.contains("1 unwatched (the watch limit reached, or a root gone"), "\(stats)")
        try h.write("S/B.app/Info.plist", infoPlist(["CFBundleIdentifier": "org.example.b"]))
        try h.sync("S")
        try expectLikeAFreshBuild(h)
        #expect(try h.bundle("S/B.app") != nil && h.bundle("S/A.app") == nil && h.bundle("T/S/A.app") != nil)
    }

    @Test("a nested root whose folder is renamed away and back is watched again: the watcher is live, not degraded")
    func nestedRootRenamedBack() throws {
        let h = try WatcherHarness(Self.app("T/T.app").merging(Self.app("T/d/R2/A.app")) { $1 }, options: WatcherHarness.quickRetry,
                                   watching: ["T", "T/d/R2"])
        defer { h.stop() }
        try h.move("T/d", "T/e")
        try h.sync("T")
        try h.move("T/e", "T/d")
        try h.sync("T")
        try h.sync("T/d/R2")
        try expectLikeAFreshBuild(h)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(h.watcher.tree.unwatched.isEmpty, "\(Array(h.watcher.tree.unwatched)) still unwatched")
        let generation = try IndexReader(path: h.indexPath).generation()
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try IndexReader(path: h.indexPath).generation() == generation, "batches go on in a quiet tree")
    }

    @Test("a folder holding the root, watched for a link's lookups, moved away and back: the root's bundles are read again")
    func folderAboveTheRootMovedBack() throws {
        let out = LinkWatchTests.Outside()
        try FileManager.default.createDirectory(atPath: out.path + "/O", withIntermediateDirectories: true)
        // `../../c/f.png` climbs from A.app to `O`, where it looks `c` up: `O` is watched, not
        // its parent, so `O`'s own IN_MOVE_SELF tells (LookupFolderTests.lookupFolderAboveTheRoot
        // has the parent watched too, and the rename seen there). The root's watches were kept
        // under its old path, unmarked: the bundles read again at the old path went, for good.
        let h = try WatcherHarness(Self.app("A.app"), links: ["A.app/L.png": "../../c/f.png"], options: WatcherHarness.quickRetry,
                                   rootIn: out.path + "/O")
        defer { h.stop() }
        try h.sync()
        #expect(rename(out.path + "/O", out.path + "/O2") == 0)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(rename(out.path + "/O2", out.path + "/O") == 0)
        try h.sync()
        try expectLikeAFreshBuild(h)
        #expect(try h.bundle("A.app") != nil)
    }

    @Test("a root replaced by a link to its folder: its bundles are read through the link")
    func rootReplacedByALink() throws {
        let h = try WatcherHarness(Self.app("A.app"), options: WatcherHarness.quickRetry)
        defer { h.stop() }
        #expect(rename(h.root, h.root + "-old") == 0)
        try FileManager.default.createSymbolicLink(atPath: h.root, withDestinationPath: h.root + "-old")
        defer { try? FileManager.default.removeItem(atPath: h.root + "-old") }
        try h.sync()
        try expectLikeAFreshBuild(h)
        #expect(try h.bundle("A.app") != nil)
    }
}
