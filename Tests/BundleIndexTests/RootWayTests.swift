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
        #expect(symlink(other, h.root + ".new") == 0 && rename(h.root + ".new", h.root) == 0)
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
}
