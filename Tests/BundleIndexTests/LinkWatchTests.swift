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

    @Test("a bundle's Contents/Resources that is a link to a folder outside the roots: files and folders added there")
    func resourcesFolderIsALink() throws {
        let out = Outside()
        try out.folder("res", files: ["a.png"])
        let h = try WatcherHarness(["A.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.a"])],
                                   links: ["A.app/Contents/Resources": out.path + "/res"])
        defer { h.stop() }
        try h.sync()
        #expect(try h.bundle("A.app")?.rel("a", "png") == "Contents/Resources/a.png")
        FileManager.default.createFile(atPath: out.path + "/res/b.png", contents: Data())
        try h.sync()
        try out.folder("res/sub", files: ["c.png"])
        try h.sync()
        FileManager.default.createFile(atPath: out.path + "/res/sub/d.png", contents: Data())
        try h.sync()
        #expect(try h.bundle("A.app")?.rel("b", "png") == "Contents/Resources/b.png")
        #expect(try h.bundle("A.app")?.rel("d", "png", dir: "sub") == "Contents/Resources/sub/d.png")
        #expect(try h.verify() == [])
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
        // Those on the root's own way (`/`, `/tmp`) are watched without the link too.
        func folders(downTo path: String) -> Set<String> {
            var out: Set<String> = ["/"], prefix = ""
            for component in PathText.components(path, omittingEmpty: true) {
                prefix += "/" + component
                out.insert(prefix)
            }
            return out
        }
        let linkWay = folders(downTo: out.path + "/big")
        let rootWay = folders(downTo: PathText.parent(of: h.root))
        #expect(h.watcher.tree.count == without + linkWay.subtracting(rootWay).count, "\(h.watcher.tree.count) watches, \(without) without the link")
        // A folder made in `big` gets no watch, and so no tree below it either.
        try out.folder("big/new/deep", files: ["g.png"])
        try FileManager.default.removeItem(atPath: h.root + "/A.app/text.txt")
        try h.sync()
        #expect(h.watcher.tree.count == without, "\(h.watcher.tree.count) watches once the link is gone")
        #expect(h.watcher.stampInterests.folderCount == 0)
    }
}

@Suite("Watcher: folders watched for links' lookups", .serialized, .tags(.slow), .enabled(if: TestPlan.runsSlowSuites, "quick run (tools/test.sh --quick)"))
struct LookupFolderTests {
    @Test("a root renamed away and back in a folder watched for a link's lookups went away, and is watched again")
    func rootRenamedAwayAndBack() throws {
        // Its rename was taken for a folder's inside the tree: its watches were carried to the
        // new name, it was never marked gone, and never watched again (every sync timed out).
        let sibling = "sib-" + UUID().uuidString
        let options = WatcherHarness.quickRetry
        let h = try WatcherHarness(LinkWatchTests.app, links: ["A.app/x.png": "../../\(sibling)/x.png"], options: options)
        defer { h.stop() }
        // The link climbs out of the root: the root's parent is watched for the entry `sib-…`.
        #expect(h.watcher.stampInterests.folderCount == 1)
        #expect(rename(h.root, h.root + "-away") == 0)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(rename(h.root + "-away", h.root) == 0)
        try h.write("A.app/new.png")
        try h.sync()
        #expect(try h.bundle("A.app")?.rel("new", "png") == "new.png")
        #expect(try h.verify() == [])
    }

    @Test("a folder watched for a link's lookups that holds the root, renamed away and back: the root is watched again")
    func lookupFolderAboveTheRoot() throws {
        let out = LinkWatchTests.Outside()
        try FileManager.default.createDirectory(atPath: out.path + "/p", withIntermediateDirectories: true)
        // `../../../p/x.png` climbs from A.app to `out` and looks `x.png` up in `p`, which holds
        // the root. Its watches were forgotten with `p`'s, and it was never watched again. Now
        // it goes away with `p`, and is watched again when back: at once while `out` is still
        // watched, else at the degraded mode's retry (the bundle's lookups, and with them
        // `out`'s watch, may go with the root's bundles before `p` is back).
        let options = WatcherHarness.quickRetry
        let h = try WatcherHarness(LinkWatchTests.app, links: ["A.app/x.png": "../../../p/x.png"], options: options,
                                   rootIn: out.path + "/p")
        defer { h.stop() }
        try h.sync()
        #expect(rename(out.path + "/p", out.path + "/q") == 0)
        Thread.sleep(forTimeInterval: 0.1)
        #expect(rename(out.path + "/q", out.path + "/p") == 0)
        try h.write("B.app/Info.plist", infoPlist(["CFBundleIdentifier": "org.example.b"]))
        try h.sync()
        #expect(try h.bundle("B.app") != nil)
        #expect(try h.verify() == [])
    }

    @Test("a folder watched for a link's lookups renamed away and back keeps the watches of link targets below it")
    func lookupFolderRenamedAwayAndBack() throws {
        let out = LinkWatchTests.Outside()
        try out.folder("ext/p/target", files: ["a.png"])
        let h = try WatcherHarness(LinkWatchTests.app.merging(["B.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.b"])]) { $1 },
                                   links: ["A.app/sub": out.path + "/ext/p/target", "B.app/y.png": out.path + "/ext/missing.png"])
        defer { h.stop() }
        // The catch-up's stamps were not settled: a first batch reads the bundles again.
        try h.sync()
        #expect(rename(out.path + "/ext", out.path + "/ext2") == 0)
        try h.sync()
        #expect(rename(out.path + "/ext2", out.path + "/ext") == 0)
        try h.sync()
        FileManager.default.createFile(atPath: out.path + "/ext/p/target/new.png", contents: Data())
        try h.sync()
        #expect(try h.bundle("A.app")?.rel("new", "png", dir: "sub") == "sub/new.png")
        #expect(try h.verify() == [])
    }

    @Test("files a bundle's links name under other names, edited in place: Info.plist and a strings table")
    func parsedFilesBehindLinks() throws {
        let out = LinkWatchTests.Outside()
        try Data(infoPlist(["CFBundleIdentifier": "org.example.one"]).utf8).write(to: URL(fileURLWithPath: out.path + "/app-info.xml"))
        try Data("\"k\" = \"v1\";".utf8).write(to: URL(fileURLWithPath: out.path + "/loc.txt"))
        let h = try WatcherHarness(["A.app/a.png": ""],
                                   links: ["A.app/Info.plist": out.path + "/app-info.xml", "A.app/en.lproj/Localizable.strings": out.path + "/loc.txt"])
        defer { h.stop() }
        try h.sync()
        #expect(try h.bundle("A.app")?.bundleIdentifier == "org.example.one")
        // Written in place: truncated, written, closed (no rename, so no entry changes).
        for (file, text) in [("app-info.xml", infoPlist(["CFBundleIdentifier": "org.example.two"])), ("loc.txt", "\"k\" = \"v2\";")] {
            let fd = open(out.path + "/" + file, O_WRONLY | O_TRUNC)
            #expect(fd >= 0)
            _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
            close(fd)
        }
        try h.sync()
        #expect(try h.bundle("A.app")?.bundleIdentifier == "org.example.two")
        #expect(try h.bundle("A.app")?.localizedString(forKey: "k", value: nil, table: nil, forLocalization: "en") == "v2")
        #expect(try h.verify() == [])
    }
}
