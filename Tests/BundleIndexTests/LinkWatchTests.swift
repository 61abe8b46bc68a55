// A running watcher notices where links it does not follow lead (docs/watching.md, "Links not
// followed"): each case changes only what a link's path resolves through, outside the bundle,
// and asserts the answer a fresh build gives, after `sync`.
import Foundation
import Logging
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Watcher: links not followed", .serialized, .tags(.slow), .enabled(if: TestPlan.runsSlowSuites, "quick run (tools/test.sh --quick)"))
struct LinkWatchTests {
    static let app = ["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.a"]), "A.app/a.png": ""]

    /// A folder outside every root, removed with the test.
    final class Outside {
        let path = makeTempDirectory(prefix: "link-watch")
        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// Makes `relative` a folder holding `files`, all at once (built aside, then renamed in).
        func folder(_ relative: String, files: [String]) throws {
            let aside = path + "/.aside-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
            for f in files { FileManager.default.createFile(atPath: aside + "/" + f, contents: Data()) }
            let target = path + "/" + relative
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: aside, toPath: target)
        }
    }

    /// After `sync`, `Res/icon.png` is found, and the index is what a fresh build makes.
    func expectIconFound(after h: WatcherHarness, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try h.sync()
        #expect(try h.bundle("A.app")?.rel("icon", "png", dir: "Res") == "Res/icon.png", sourceLocation: sourceLocation)
        #expect(try h.verify() == [], sourceLocation: sourceLocation)
    }

    @Test("a dangling link's target appears outside the roots, as a folder: its files are found")
    func danglingTargetAppears() throws {
        let out = Outside()
        let h = try WatcherHarness(Self.app, links: ["A.app/Res": out.path + "/assets"])
        defer { h.stop() }
        #expect(try h.bundle("A.app")?.rel("icon", "png", dir: "Res") == nil)
        try out.folder("assets", files: ["icon.png"])
        try expectIconFound(after: h)
    }

    @Test("a link to a file in the tree whose target turns into a folder, by a rename")
    func fileTurnsIntoFolder() throws {
        let h = try WatcherHarness(Self.app.merging(["Shared/thing": "a file"]) { $1 }, links: ["A.app/Res": "../Shared/thing"])
        defer { h.stop() }
        try FileManager.default.removeItem(atPath: h.root + "/Shared/thing")
        try FileManager.default.createDirectory(atPath: h.root + "/Aside/thing", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: h.root + "/Aside/thing/icon.png", contents: Data())
        try FileManager.default.moveItem(atPath: h.root + "/Aside/thing", toPath: h.root + "/Shared/thing")
        try expectIconFound(after: h)
    }

    @Test("a link further along a chain retargeted: the chain now ends at a folder")
    func chainRetargeted() throws {
        let out = Outside()
        try out.folder("full", files: ["icon.png"])
        try FileManager.default.createSymbolicLink(atPath: out.path + "/step", withDestinationPath: "nothing")
        let h = try WatcherHarness(Self.app, links: ["A.app/Res": out.path + "/step"])
        defer { h.stop() }
        #expect(try h.bundle("A.app")?.rel("icon", "png", dir: "Res") == nil)
        // `ln -sfn full step`: a new link renamed over the old one.
        try FileManager.default.createSymbolicLink(atPath: out.path + "/step.new", withDestinationPath: "full")
        #expect(rename(out.path + "/step.new", out.path + "/step") == 0)
        try expectIconFound(after: h)
    }

    @Test("a folder the link's path passes through is replaced by a rename")
    func folderOnThePathReplaced() throws {
        let out = Outside()
        try out.folder("a/b", files: ["other.png"])
        let h = try WatcherHarness(Self.app, links: ["A.app/Res": out.path + "/a/b/c"])
        defer { h.stop() }
        try FileManager.default.moveItem(atPath: out.path + "/a", toPath: out.path + "/a.old")
        try out.folder("a/b/c", files: ["icon.png"])
        try expectIconFound(after: h)
    }

    @Test("a relative link climbing out of the roots to a missing folder, which appears")
    func relativeLinkOutOfTheRoots() throws {
        let out = Outside()
        // The root's parent is the temporary folder; the link climbs there, then into `out`.
        let h = try WatcherHarness(Self.app, links: ["A.app/Res": "../../" + (out.path as NSString).lastPathComponent + "/x/y"])
        defer { h.stop() }
        try out.folder("x/y", files: ["icon.png"])
        try expectIconFound(after: h)
    }

    @Test("a bundle the catch-up keeps still has its links' paths watched")
    func keptBundle() throws {
        let out = Outside()
        let h = try WatcherHarness(Self.app, links: ["A.app/Res": out.path + "/assets"], prepare: { root, index in
            waitUntilSettled()
            _ = try IndexBuilder.build(roots: [root], indexPath: index)
            waitUntilSettled()
        })
        defer { h.stop() }
        try out.folder("assets", files: ["icon.png"])
        try expectIconFound(after: h)
    }

    @Test("one watch per folder a link's path looks into, none for the trees below; dropped with the link")
    func watchesAreNarrow() throws {
        let out = Outside()
        for i in 0..<20 { try out.folder("big/d\(i)/e", files: ["f.png"]) }
        FileManager.default.createFile(atPath: out.path + "/big/file.txt", contents: Data())
        let plain = try WatcherHarness(Self.app)
        let without = plain.watcher.tree.count
        plain.stop()
        let h = try WatcherHarness(Self.app, links: ["A.app/text.txt": out.path + "/big/file.txt"])
        defer { h.stop() }
        // `/`, the folders down to `out`, `out` and `big`: never the 40 folders below `big`.
        let above = PathText.components(out.path, omittingEmpty: true).count
        #expect(h.watcher.tree.count == without + above + 2, "\(h.watcher.tree.count) watches, \(without) without the link")
        // A folder made in `big` gets no watch, and so no tree below it either.
        try out.folder("big/new/deep", files: ["g.png"])
        try FileManager.default.removeItem(atPath: h.root + "/A.app/text.txt")
        try h.sync()
        #expect(h.watcher.tree.count == without, "\(h.watcher.tree.count) watches once the link is gone")
        #expect(h.watcher.stampInterests.folderCount == 0)
    }
}
