// Links an incremental build must see lead elsewhere, and the folders outside a bundle's walked
// tree (docs/scanning.md, "What a stamp holds", "Inode numbers"). Each case ends with the index
// a fresh full build writes; each failed on format 18's first commit.
import Foundation
import Glibc
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Incremental build: links and the folders outside the walked tree", .serialized)
struct LinkStampTests {
    typealias Tree = IncrementalBuildTests.Tree

    /// Points the link `relative` of `t` at `target` as a package manager does: a new link
    /// renamed over the old one.
    static func retarget(_ t: Tree, _ relative: String, to target: String) {
        let path = t.root + "/" + relative
        #expect(symlink(target, path + ".next") == 0)
        #expect(rename(path + ".next", path) == 0)
    }

    static let contentsApp = ["A.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.a"])]

    @Test("a link to a link: the folder of every step is stamped")
    func linkChain() throws {
        let t = try Tree(ChangeTimeStampTests.app.merging(["Ext/other/keep.txt": ""]) { $1 },
                         links: ["A.app/L": "../Ext/sub/b", "Ext/sub/b": "../other/c"])
        _ = try t.fixture.build()
        try t.fixture.add(["Ext/other/c/x.png": "png"])
        try IncrementalBuildTests.buildAndCompare(t, read: 1, unchanged: 0)
        #expect(try t.fixture.bundle("A.app").path(forResource: "x", ofType: "png", inDirectory: "L") != nil)
    }

    @Test("a link to a folder the scan does not follow (it leads into the bundle) is stamped like a link to a file")
    func linkNotFollowed() throws {
        let t = try Tree(ChangeTimeStampTests.app.merging(["T/t.png": "png"]) { $1 },
                         links: ["cur": "A.app", "A.app/L": "../cur"])
        try Self.pointCurAtT(t, thenFind: "t")
    }

    @Test("a walked tree that is itself a link keeps its inode: its versions exchanged within one clock tick show")
    func linkedTreeKeepsItsInode() throws {
        let t = try Tree(Self.contentsApp, links: [:])
        let versions = "A.app/Contents/Versions"
        try ChangeTimeStampTests.writeTwins(t, [versions + "/A/Resources/one.png": "1"], [versions + "/B/Resources/two.png": "2"],
                                            tops: [versions + "/A", versions + "/B"])
        try t.fixture.add([:], links: ["A.app/Contents/Resources": "Versions/A/Resources"])
        t.settle()
        _ = try t.fixture.build()
        try ChangeTimeStampTests.exchange(t, versions + "/A", versions + "/B")
        try IncrementalBuildTests.buildAndCompare(t, read: 1, unchanged: 0)
        #expect(try t.fixture.bundle("A.app").path(forResource: "two", ofType: "png") != nil)
    }

    @Test("a link whose target lies in the bundle only by way of a link outside it keeps its inode")
    func linkBackThroughOutside() throws {
        let t = try Tree(ChangeTimeStampTests.app, links: [:])
        try ChangeTimeStampTests.writeTwins(t, ["A.app/sub/one.png": "1"], ["T/sub/two.png": "2"], tops: ["A.app/sub", "T/sub"])
        try t.fixture.add([:], links: ["cur": "A.app", "A.app/L": "../cur/sub"])
        try Self.pointCurAtT(t, thenFind: "two")
    }

    /// Builds `t`, points its link `cur` at `T`, and builds again: A.app is read again, the index
    /// is a full build's, and `name`.png is found in A.app's folder `L`.
    static func pointCurAtT(_ t: Tree, thenFind name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        t.settle()
        _ = try t.fixture.build()
        retarget(t, "cur", to: "T")
        try IncrementalBuildTests.buildAndCompare(t, read: 1, unchanged: 0, sourceLocation: sourceLocation)
        #expect(try t.fixture.bundle("A.app").path(forResource: name, ofType: "png", inDirectory: "L") != nil,
                sourceLocation: sourceLocation)
    }

    @Test("a link whose text names a link the scan does not follow (up -> ..) keeps its inode")
    func linkThroughALinkNotFollowed() throws {
        let t = try Tree(ChangeTimeStampTests.app, links: [:])
        try ChangeTimeStampTests.writeTwins(t, ["t1/one.png": "1"], ["T/two.png": "2"], tops: ["t1", "T"])
        try t.fixture.add([:], links: ["A.app/up": "..", "A.app/L": "up/cur", "cur": "t1"])
        try Self.pointCurAtT(t, thenFind: "two")
    }

    @Test("a chain whose joined path grows past what a path may hold is stamped by its first link, followed")
    func longChain() throws {
        let folder = { (i: Int) in "Ext/" + String(repeating: "k", count: 200) + "\(i)" }
        var links = ["A.app/L": "../" + folder(0) + "/l"]
        for i in 0..<20 { links[folder(i) + "/l"] = i == 19 ? "../f" : "../" + folder(i + 1).dropFirst(4) + "/l" }
        let t = try Tree(ChangeTimeStampTests.app.merging(["Ext/f": "file"]) { $1 }, links: links)
        _ = try t.fixture.build()
        try t.remove("Ext/f")
        try t.fixture.add(["Ext/f/sub/x.png": "png"])
        try IncrementalBuildTests.buildAndCompare(t, read: 1, unchanged: 0)
        #expect(try t.fixture.bundle("A.app").path(forResource: "x", ofType: "png", inDirectory: "L/sub") != nil)
    }

    @Test("a Contents/Resources that loops is no folder, not an unreadable one")
    func loopingTree() throws {
        let t = try Tree(Self.contentsApp.merging(["A.app/Contents/Resources/a.png": "png"]) { $1 }, links: [:])
        _ = try t.fixture.build()
        try t.remove("A.app/Contents/Resources")
        try t.fixture.add([:], links: ["A.app/Contents/Resources": "Resources"])
        let summary = try IncrementalBuildTests.buildAndCompare(t, read: 1, unchanged: 0)
        #expect(summary.unreadableDirectories == 0 && summary.warnings.isEmpty, "\(summary.warnings)")
        #expect(try t.fixture.bundle("A.app").path(forResource: "a", ofType: "png") == nil)
    }

    @Test("a dangling Contents/Resources and a dangling Contents: their targets appearing are seen")
    func danglingLayoutFolders() throws {
        let t = try Tree(Self.contentsApp.merging(["Ext/keep.txt": "", "B.app/keep.txt": ""]) { $1 },
                         links: ["A.app/Contents/Resources": "../../Ext/Res", "B.app/Contents": "../Ext/C"])
        _ = try t.fixture.build()
        try t.fixture.add(["Ext/Res/one.png": "png", "Ext/C/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.b"]),
                           "Ext/C/Resources/two.png": "png"])
        try IncrementalBuildTests.buildAndCompare(t, read: 2, unchanged: 0)
        #expect(try t.fixture.bundle("A.app").path(forResource: "one", ofType: "png") != nil)
        let b = try t.fixture.bundle("B.app")
        #expect(try b.path(forResource: "two", ofType: "png") != nil)
        #expect(b.bundleIdentifier == "org.example.b")
    }

    @Test("an Info.plist that is a link into a folder chosen by a link retargeted between copies of one clock tick")
    func infoPlistThroughRetargetedLink() throws {
        let t = try Tree(["A.app/Contents/Resources/icon.png": "png"], links: [:])
        try ChangeTimeStampTests.writeTwins(t, ["Shared/A/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.1"])],
                                            ["Shared/B/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.2"])],
                                            tops: ["Shared/A", "Shared/B"])
        try t.fixture.add([:], links: ["Shared/cur": "A", "A.app/Contents/Info.plist": "../../Shared/cur/Info.plist"])
        t.settle()
        #expect(try t.fixture.bundle("A.app").bundleIdentifier == "org.example.1")
        Self.retarget(t, "Shared/cur", to: "B")
        // Shared/A and Shared/B hold an Info.plist: bundles of their own, unchanged.
        try IncrementalBuildTests.buildAndCompare(t, read: 1, unchanged: 2)
        #expect(try t.fixture.bundle("A.app").bundleIdentifier == "org.example.2")
    }
}
