// What a randomised comparison of a running watcher with fresh builds found (fourteenth session):
// each case changes a tree the way the comparison did and asserts, after `sync`, that the index
// holds the bundles and answers a fresh build gives.
import Foundation
import Logging
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Watcher: layouts, links and contents", .serialized, .tags(.slow), .enabled(if: TestPlan.runsSlowSuites, "quick run (tools/test.sh --quick)"))
struct WatchLayoutTests {
    static func gnustepInfo(_ identifier: String) -> String { "{ CFBundleIdentifier = \"\(identifier)\"; }" }

    /// The bundle paths of the index at `indexPath`, relative to `root`, sorted.
    static func bundles(_ indexPath: String, root: String) throws -> [String] {
        try IndexReader(path: indexPath).bundles().map { String($0.bundlePath.dropFirst(root.count + 1)) }.sorted()
    }

    /// After `sync`: the watched index holds the bundles a fresh build of the tree finds, and
    /// `verify` finds nothing; and no batch follows once the tree is quiet.
    func expectLikeAFreshBuild(_ h: WatcherHarness, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try h.sync()
        let fresh = h.root + "-fresh"
        defer { try? FileManager.default.removeItem(atPath: fresh) }
        _ = try IndexBuilder.build(roots: [h.root], indexPath: fresh)
        #expect(try Self.bundles(h.indexPath, root: h.root) == Self.bundles(fresh, root: h.root), sourceLocation: sourceLocation)
        #expect(try h.verify() == [], sourceLocation: sourceLocation)
        let generation = try IndexReader(path: h.indexPath).generation()
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try IndexReader(path: h.indexPath).generation() == generation, "batches go on in a quiet tree", sourceLocation: sourceLocation)
    }

    static let library = "share/GNUstep/Libraries/gnustep-foo/Versions"

    static func libraryFiles(_ version: String, greeting: String) -> [String: String] {
        ["\(library)/\(version)/Resources/Info-gnustep.plist": gnustepInfo("org.example.lib"),
         "\(library)/\(version)/Resources/English.lproj/Localizable.strings": "\"greet\" = \"\(greeting)\";"]
    }

    func greeting(_ h: WatcherHarness) throws -> String? {
        try h.bundle("\(Self.library)/Current")?.localizedString(forKey: "greet", value: nil, table: nil)
    }

    @Test("a GNUstep library's Versions/Current stays indexed when the version it names changes, and follows the link")
    func libraryCurrent() throws {
        let h = try WatcherHarness(Self.libraryFiles("1.0", greeting: "hello").merging(Self.libraryFiles("1.1", greeting: "hi")) { $1 },
                                   links: ["\(Self.library)/Current": "1.0"])
        defer { h.stop() }
        try h.write("\(Self.library)/1.0/Resources/English.lproj/Localizable.strings", "\"greet\" = \"HELLO\";")
        try expectLikeAFreshBuild(h)
        #expect(try greeting(h) == "HELLO")
        // `ln -sfn 1.1 Current`
        try FileManager.default.createSymbolicLink(atPath: h.root + "/\(Self.library)/Current.new", withDestinationPath: "1.1")
        #expect(rename(h.root + "/\(Self.library)/Current.new", h.root + "/\(Self.library)/Current") == 0)
        try expectLikeAFreshBuild(h)
        #expect(try greeting(h) == "hi")
    }

    @Test("a bundle nested in the version a library's Versions/Current names, made, removed and swapped: under Current too",
          arguments: ["add", "remove", "swap"])
    func libraryCurrentNested(_ change: String) throws {
        let nested = "Resources/pt-BR.lproj/Info.plist"
        var files = Self.libraryFiles("1.0", greeting: "hello").merging(Self.libraryFiles("2.0", greeting: "hi")) { $1 }
        if change == "remove" { files["\(Self.library)/1.0/\(nested)"] = infoPlist(["CFBundleIdentifier": "org.example.nested"]) }
        if change == "swap" { files["\(Self.library)/2.0/\(nested)"] = infoPlist(["CFBundleIdentifier": "org.example.nested"]) }
        let h = try WatcherHarness(files, links: ["\(Self.library)/Current": "1.0"])
        defer { h.stop() }
        switch change {
        case "add": try h.write("\(Self.library)/1.0/\(nested)", infoPlist(["CFBundleIdentifier": "org.example.nested"]))
        case "remove": try h.remove("\(Self.library)/1.0/\(nested)")
        default:
            try h.move("\(Self.library)/1.0", "\(Self.library)/tmp")
            try h.move("\(Self.library)/2.0", "\(Self.library)/1.0")
            try h.move("\(Self.library)/tmp", "\(Self.library)/2.0")
        }
        try expectLikeAFreshBuild(h)
    }

    @Test("a framework's nested bundle behind its Resources link is indexed once, under its real path, after a change")
    func frameworkNestedBundle() throws {
        let h = try WatcherHarness(["F.framework/Versions/A/Resources/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.f"]),
                                    "F.framework/Versions/A/Resources/P.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.p"]),
                                    "F.framework/Versions/A/Resources/en.lproj/Localizable.strings": "\"k\" = \"v\";"],
                                   links: ["F.framework/Versions/Current": "A", "F.framework/Resources": "Versions/Current/Resources"])
        defer { h.stop() }
        try h.write("F.framework/Versions/A/Resources/en.lproj/Localizable.strings", "\"k\" = \"w\";")
        try expectLikeAFreshBuild(h)
    }

    @Test("a bundle's followed link into another bundle does not take that bundle's watches")
    func linkIntoAnotherBundle() throws {
        let h = try WatcherHarness(["X.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.x"]),
                                    "Y.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.y"]),
                                    "Y.app/dir/sub/a.png": ""],
                                   links: ["X.app/ext": "../Y.app/dir"])
        defer { h.stop() }
        try h.write("X.app/new.png")
        try h.sync()
        try h.write("Y.app/dir/sub/new.png")
        try expectLikeAFreshBuild(h)
        #expect(try h.bundle("Y.app")?.rel("new", "png", dir: "dir/sub") == "dir/sub/new.png")
    }

    @Test("a folder above a followed link's target renamed: the link leads nowhere now")
    func folderAboveALinkTargetRenamed() throws {
        let h = try WatcherHarness(["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.a"]), "P/dir/p.png": ""],
                                   links: ["A.app/ext": "../P/dir"])
        defer { h.stop() }
        #expect(try h.bundle("A.app")?.rel("p", "png", dir: "ext") == "ext/p.png")
        try h.move("P", "P2")
        try expectLikeAFreshBuild(h)
        #expect(try h.bundle("A.app")?.rel("p", "png", dir: "ext") == nil)
    }

    @Test("a folder becomes a bundle by an Info.plist in its Resources or Contents folder",
          arguments: ["D/Resources/Info-gnustep.plist", "D/Resources/Info.plist", "D/Contents/Info.plist"])
    func infoPlistInALayoutFolder(_ info: String) throws {
        let h = try WatcherHarness([(info as NSString).deletingLastPathComponent + "/a.png": ""])
        defer { h.stop() }
        try h.write(info, info.hasSuffix("gnustep.plist") ? Self.gnustepInfo("org.example.d") : infoPlist(["CFBundleIdentifier": "org.example.d"]))
        try expectLikeAFreshBuild(h)
        #expect(try h.bundle("D") != nil)
    }

    @Test("a bundle that stops being one keeps the bundles nested in it")
    func outerBundleGone() throws {
        let h = try WatcherHarness(["O/Resources/Info-gnustep.plist": Self.gnustepInfo("org.example.o"),
                                    "O/Resources/English.lproj/P.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.p"])])
        defer { h.stop() }
        try h.remove("O/Resources/Info-gnustep.plist")
        try expectLikeAFreshBuild(h)
        #expect(try h.bundle("O/Resources/English.lproj/P.bundle") != nil)
    }

    @Test("a strings table truncated by truncate(2), which makes no close-write event")
    func stringsTruncated() throws {
        let h = try WatcherHarness(["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.a"]),
                                    "A.app/en.lproj/Localizable.strings": "\"k\" = \"v\";"])
        defer { h.stop() }
        #expect(try h.bundle("A.app")?.localizedString(forKey: "k", value: nil, table: nil) == "v")
        #expect(truncate(h.root + "/A.app/en.lproj/Localizable.strings", 0) == 0)
        try expectLikeAFreshBuild(h)
        #expect(try h.bundle("A.app")?.localizedString(forKey: "k", value: nil, table: nil) == "k")
    }

    @Test("a root given as a symbolic link to a folder is watched")
    func rootThroughALink() throws {
        let h = try WatcherHarness(["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.a"])], rootIsALink: true)
        defer { h.stop() }
        try h.write("B.app/Info.plist", infoPlist(["CFBundleIdentifier": "org.example.b"]))
        try expectLikeAFreshBuild(h)
        #expect(try h.bundle("B.app") != nil)
    }
}
