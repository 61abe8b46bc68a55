// Debian's layout of a GNUstep application: `lib/GNUstep/Applications/X.app/Resources` is a
// link to `share/GNUstep/X.app`, itself a flat bundle. An incremental build reads the stamps
// below such a link relative to the folder it leads to (`BundleFolder.follow`); the answers
// must be those of reading them through the link (docs/performance.md, "Stamps read past a
// linked Resources").
import Foundation
import Glibc
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Incremental build: a Resources that is a link", .serialized)
struct LinkedResourcesTests {
    static let shared = "share/GNUstep/Tool.app"
    static let application = "lib/GNUstep/Applications/Tool.app"

    static let tree: [String: String] = [
        shared + "/Info-gnustep.plist": "{ NSExecutable = Tool; CFBundleIdentifier = org.example.tool; }",
        shared + "/English.lproj/Localizable.strings": "\"hi\" = \"Hello\";",
        shared + "/French.lproj/Localizable.strings": "\"hi\" = \"Salut\";",
        shared + "/German.lproj/Localizable.strings": "\"hi\" = \"Hallo\";",
        shared + "/Images/icon.png": "png",
        application + "/Tool": "binary",
        "share/GNUstep/Other.app/Info-gnustep.plist": "{ NSExecutable = Tool; CFBundleIdentifier = org.example.other; }",
        "share/GNUstep/Other.app/English.lproj/Localizable.strings": "\"hi\" = \"Other\";",
    ]
    static let links = [application + "/Resources": "../../../../" + shared]

    @Test("stamps read past the link answer as stamps read through it, for files, folders, the link itself and what is missing")
    func sameTimes() throws {
        let f = try BundleFixture(Self.tree, links: Self.links)
        let app = f.root + "/" + Self.application
        let parents = ParentFolders()
        let through = try #require(parents.folder(app))
        let past = try #require(parents.folder(app))
        #expect(past.follow("Resources"))
        #expect(!past.follow("Resources"), "one link per folder")
        let relatives = ["", "Tool", "Resources", "Resources/English.lproj", "Resources/French.lproj/Localizable.strings",
                         "Resources/Images/icon.png", "Resources/missing.png", "Resources/missing/deeper", "ResourcesX", "Resource"]
        for relative in relatives {
            #expect(past.changeTime(relative) == through.changeTime(relative), "\(relative)")
        }
        #expect(through.changeTime("Resources/Images/icon.png") != 0)
        #expect(past.changeTime("Resources/missing.png") == 0)
        // A folder that is no link is read as a path, as before.
        let sharedParents = ParentFolders()   // holds the folder's parent open
        let flat = try #require(sharedParents.folder(f.root + "/" + Self.shared))
        #expect(!flat.follow("Images"))
        #expect(!flat.follow("absent"))
        #expect(flat.changeTime("Images/icon.png") == through.changeTime("Resources/Images/icon.png"))
    }

    @Test("the bundle a link leads to takes the times read through it only when they are exactly its own stamps")
    func vouchedTimes() throws {
        let f = try BundleFixture(Self.tree, links: Self.links)
        let times = LinkedFolderTimes()
        let relatives = ["", "English.lproj", "French.lproj/Localizable.strings", "Images", "Info-gnustep.plist"]
        // The application, through its link: every stamp read from the disk and recorded.
        let appParents = ParentFolders()
        let app = try #require(appParents.folder(f.root + "/" + Self.application))
        app.share(times, trusting: true)
        #expect(app.follow("Resources"))
        let read = relatives.map { app.changeTime($0.isEmpty ? "Resources" : "Resources/" + $0) }
        #expect(!read.contains(0))
        #expect(app.finish())

        func shared(_ stamps: [(String, UInt64)]) throws -> (matched: Bool, settled: Bool) {
            let parents = ParentFolders()
            let folder = try #require(parents.folder(f.root + "/" + Self.shared))
            folder.share(times, trusting: true)
            let matched = stamps.allSatisfy { folder.matches($0.0, $0.1, inode: 0) }
            return (matched, folder.finish())
        }
        // The same stamps, in another order: taken on trust, and settled.
        #expect(try shared(Array(zip(relatives, read).reversed())) == (true, true))
        // One time differs, one stamp is missing, one is added: each is taken, none settles.
        var wrong = Array(zip(relatives, read))
        wrong[2].1 += 1
        #expect(try shared(wrong) == (true, false))
        #expect(try shared(Array(zip(relatives, read).dropLast())) == (true, false))
        #expect(try shared(Array(zip(relatives, read)) + [("German.lproj", read[1])]) == (true, false))
        // Not trusting: read from the disk, as any other folder.
        let parents = ParentFolders()
        let plain = try #require(parents.folder(f.root + "/" + Self.shared))
        plain.share(times, trusting: false)
        #expect(!plain.matches("Images", read[3] + 1, inode: 0))
        #expect(plain.matches("Images", read[3], inode: 0))
        #expect(plain.finish())
    }

    @Test("a table rewritten past the link is read again in both bundles; a link pointed elsewhere is seen")
    func changesPastTheLink() throws {
        let t = try IncrementalBuildTests.Tree(Self.tree, links: Self.links)
        let first = try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath)
        #expect(IncrementalBuildTests.counts(first) == [3, 0, 0])
        t.settle()
        try IncrementalBuildTests.buildAndCompare(t, read: 0, unchanged: 3)

        // In place: only the table's own time changes, which the application sees through its link.
        try t.rewrite(Self.shared + "/French.lproj/Localizable.strings", "\"hi\" = \"Bonjour\";")
        try IncrementalBuildTests.buildAndCompare(t, read: 2, unchanged: 1)
        let reader = try IndexReader(path: t.fixture.indexPath)
        let app = try #require(try reader.bundle(atPath: t.root + "/" + Self.application, context: .foundationLinux))
        #expect(try app.localizedString(forKey: "hi", value: nil, table: nil, forLocalization: "French") == "Bonjour")

        // The link now leads to another application's folder.
        try t.remove(Self.application + "/Resources")
        try FileManager.default.createSymbolicLink(atPath: t.root + "/" + Self.application + "/Resources",
                                                   withDestinationPath: "../../../../share/GNUstep/Other.app")
        try IncrementalBuildTests.buildAndCompare(t, read: 1, unchanged: 2)
        let moved = try #require(try IndexReader(path: t.fixture.indexPath)
            .bundle(atPath: t.root + "/" + Self.application, context: .foundationLinux))
        #expect(try moved.localizedString(forKey: "hi", value: nil, table: nil, forLocalization: "English") == "Other")
    }
}
