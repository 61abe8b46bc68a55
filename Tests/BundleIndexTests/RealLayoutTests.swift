// Bundles as a real Linux system ships them (issue 15): Debian's split GNUstep bundles, whose
// resources are a link out of the bundle, answered as Foundation answers them.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Real layouts")
struct RealLayoutTests {
    /// Debian's way (docs/real-corpus.md): `lib/GNUstep/Applications/Ink.app/Resources` and a
    /// framework's `Versions/0/Resources` are links into `share/GNUstep`.
    static let debianFiles: [String: String] = [
        "usr/lib/GNUstep/Applications/Ink.app/Ink": "",
        "usr/lib/GNUstep/Applications/Ink.app/stamp.make": "",
        "usr/share/GNUstep/Ink.app/Info-gnustep.plist": "{ NSExecutable = Ink; CFBundleIdentifier = org.gnustep.Ink; }",
        "usr/share/GNUstep/Ink.app/Ink.tiff": "",
        "usr/share/GNUstep/Ink.app/Images/pen.png": "",
        "usr/share/GNUstep/Ink.app/English.lproj/Localizable.strings": "\"a\" = \"A\";",
        "usr/share/GNUstep/Ink.app/English.lproj/Ink.gorm/objects.gorm": "",
        "usr/share/GNUstep/Ink.app/German.lproj/Localizable.strings": "\"a\" = \"Ä\";",
        "usr/share/GNUstep/Ink.app/German.lproj/Only.rtf": "",
        "usr/lib/GNUstep/Frameworks/Kit.framework/Versions/0/libKit.so.0.0.1": "",
        "usr/share/GNUstep/Frameworks/Kit.framework/Versions/0/Info-gnustep.plist": "{ NSExecutable = Kit; }",
        "usr/share/GNUstep/Frameworks/Kit.framework/Versions/0/Kit.tiff": "",
        "usr/share/GNUstep/Frameworks/Kit.framework/Versions/0/French.lproj/Localizable.strings": "",
        "usr/lib/GNUstep/Frameworks/Dev.framework/Versions/0/libDev.so.0.0.1": "",
        "usr/share/GNUstep/Frameworks/Dev.framework/Versions/0/Info-gnustep.plist": "{ NSExecutable = Dev; }",
        "usr/share/GNUstep/Frameworks/Dev.framework/Versions/0/English.lproj/Dev.strings": "",
    ]
    static let debianLinks: [String: String] = [
        "usr/lib/GNUstep/Applications/Ink.app/Resources": "../../../../share/GNUstep/Ink.app",
        "usr/lib/GNUstep/Frameworks/Kit.framework/Versions/0/Resources": "../../../../../../share/GNUstep/Frameworks/Kit.framework/Versions/0",
        "usr/lib/GNUstep/Frameworks/Dev.framework/Versions/0/Resources": "../../../../../../share/GNUstep/Frameworks/Dev.framework/Versions/0",
        "usr/lib/GNUstep/Frameworks/Dev.framework/Versions/Current": "0",
        "usr/lib/GNUstep/Frameworks/Dev.framework/Resources": "Versions/Current/Resources",
    ]

    @Test("a link out of the bundle is followed as Foundation follows it: Debian's split application and frameworks")
    func linksOutOfTheBundle() throws {
        let f = try BundleFixture(Self.debianFiles, links: Self.debianLinks)
        try f.build()
        let ink = try f.bundle("usr/lib/GNUstep/Applications/Ink.app")
        // Paths go through the link, under the bundle's own path, as Foundation returns them.
        #expect(try ink.rel("pen", "png", dir: "Images") == "Resources/Images/pen.png")
        #expect(ink.localizations.sorted() == ["English", "German"])
        for bundle in ["usr/lib/GNUstep/Applications/Ink.app", "usr/lib/GNUstep/Frameworks/Kit.framework",
                       "usr/lib/GNUstep/Frameworks/Dev.framework", "usr/share/GNUstep/Ink.app"] {
            let differences = try foundationDifferences(bundleAt: f.root + "/" + bundle, index: f.indexPath)
            #expect(differences.isEmpty, "\(bundle): \(differences)")
        }
    }

    @Test("a folder a link leads to is listed once, though one bundle reads it through the link and the walk reaches it again as its own")
    func linkedFoldersListedOnce() throws {
        let f = try BundleFixture(Self.debianFiles, links: Self.debianLinks)
        let report = try TreeWalker().walk(root: f.root) { _ in }
        // Every real folder of the tree, each counted once (`find -type d` does not follow links).
        var folders = 0
        let walk = try #require(FileManager.default.enumerator(atPath: f.root))
        while walk.nextObject() != nil {
            if (walk.fileAttributes?[.type] as? FileAttributeType) == .typeDirectory { folders += 1 }
        }
        // The root is a folder too.
        #expect(report.foldersRead == folders + 1, "\(report.foldersRead) listings for \(folders + 1) folders")
    }

    @Test("links out of a bundle count against the bound on directories reached through links")
    func outsideLinksAreBounded() throws {
        let outside = makeTempDirectory(prefix: "outside")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        // Links that fan out, outside the bundle: 10^7 paths if nothing stopped them.
        for level in 0..<8 { try FileManager.default.createDirectory(atPath: outside + "/d\(level)", withIntermediateDirectories: true) }
        FileManager.default.createFile(atPath: outside + "/d7/leaf.txt", contents: Data())
        for level in 0..<7 {
            for l in 0..<10 { try FileManager.default.createSymbolicLink(atPath: outside + "/d\(level)/l\(l)", withDestinationPath: "../d\(level + 1)") }
        }
        let f = try BundleFixture(["Far.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "far"]), "Near.app/Info.plist": infoPlist([:])],
                                  links: ["Far.bundle/Out": outside + "/d0", "Far.bundle/Up": "..", "Near.app/Out": outside + "/d6"])
        let summary = try f.build()
        #expect(summary.warnings.contains { $0.contains("Far.bundle: symbolic links reach more than 10000 directories") }, "\(summary.warnings)")
        #expect(summary.resources < 50_000, "\(summary.resources) resources")
        // A small tree behind a link out is indexed whole; a link to a folder holding the
        // bundle is a loop and stays an entry.
        #expect(try f.bundle("Near.app").rels(nil, dir: "Out/l3") == ["Out/l3/leaf.txt"])
        #expect(try f.bundle("Near.app").rels(nil, dir: "Out").count == 10)
        #expect(try f.bundle("Far.bundle").rel("Up", nil) == "Up")
        #expect(try f.bundle("Far.bundle").rels(nil, dir: "Up").isEmpty)
    }

    /// gnustep-base's resources as Debian's `gnustep-base-common` installs them, with the
    /// `Versions/Current` link gnustep-make adds.
    static let libraryFiles: [String: String] = [
        "Libraries/gnustep-base/Versions/1.28/Resources/Info-gnustep.plist": "{ NSExecutable = gnustep-base; }",
        "Libraries/gnustep-base/Versions/1.28/Resources/Languages/English": "",
        "Libraries/gnustep-base/Versions/1.28/Resources/English.lproj/Localizable.strings": "\"a\" = \"A\";",
        "Libraries/gnustep-base/Versions/1.28/Resources/German.lproj/Localizable.strings": "\"a\" = \"A\";",
        "Libraries/gnustep-base/Versions/1.28/Resources/NSTimeZones/zones/UTC": "",
        "Libraries/gnustep-gui/Versions/0.29/README": "",
        "Other/Versions/2/Resources/x.txt": "",
    ]

    @Test("a GNUstep library resource folder (Libraries/<lib>/Versions/<version> with Resources) and its Current link are bundles, answering as Foundation")
    func libraryResourceFolders() throws {
        let f = try BundleFixture(Self.libraryFiles, links: ["Libraries/gnustep-base/Versions/Current": "1.28"])
        try f.build()
        let paths = try f.reader().bundles().map { String($0.bundlePath.dropFirst(f.root.count + 1)) }
        #expect(paths == ["Libraries/gnustep-base/Versions/1.28", "Libraries/gnustep-base/Versions/Current"],
                "a Versions folder without Resources, or outside a Libraries folder, is no library bundle")
        for bundle in paths {
            let differences = try foundationDifferences(bundleAt: f.root + "/" + bundle, index: f.indexPath)
            #expect(differences.isEmpty, "\(bundle): \(differences)")
        }
        #expect(try f.bundle("Libraries/gnustep-base/Versions/Current").rel("UTC", nil, dir: "NSTimeZones/zones")
                == "Resources/NSTimeZones/zones/UTC")
    }

    @Test("build --bundle indexes any folder as a bundle; later builds, verify and the CLI keep it")
    func declaredBundles() throws {
        let f = try BundleFixture(["Tree/Plain/notes.txt": "", "Tree/Plain/fr.lproj/notes.txt": "", "Tree/App.app/icon.png": ""])
        let plain = f.root + "/Tree/Plain"
        let before = try run([bundleidxBinary, "query", "--index", f.indexPath, plain, "notes", "--type", "txt"])
        #expect(before.status != 0)
        #expect(try run([bundleidxBinary, "build", "--index", f.indexPath, f.root + "/Tree"]).status == 0)
        let refused = try run([bundleidxBinary, "query", "--index", f.indexPath, plain, "notes", "--type", "txt"])
        #expect(refused.status == 1 && refused.stderr.contains("bundleidx build --bundle \(plain)"), "\(refused.stderr)")
        let batch = try run([bundleidxBinary, "query", "--batch", "--index", f.indexPath],
                            input: #"{"bundle":"\#(plain)","op":"path","name":"notes","type":"txt"}"# + "\n")
        #expect(batch.stdout.contains("bundleidx build --bundle \(plain)"), "\(batch)")
        #expect(try run([bundleidxBinary, "build", "--index", f.indexPath, "--bundle", plain]).status == 0)
        // A later build of the tree holding it, without --bundle, keeps it.
        #expect(try run([bundleidxBinary, "build", "--index", f.indexPath, f.root + "/Tree"]).status == 0)
        let found = try run([bundleidxBinary, "query", "--index", f.indexPath, plain, "notes", "--type", "txt"])
        #expect(found.status == 0 && found.stdout == plain + "/notes.txt\n", "\(found)")
        #expect(try foundationDifferences(bundleAt: plain, index: f.indexPath).isEmpty)
        #expect(try IndexVerifier.verify(indexPath: f.indexPath) == [])
        #expect(try f.reader().statistics().declaredBundles == [plain])
        let stats = try run([bundleidxBinary, "stats", "--index", f.indexPath])
        #expect(stats.stdout.contains("bundles named with --bundle: \(plain)"), "\(stats.stdout)")
        let missing = try run([bundleidxBinary, "build", "--index", f.indexPath, "--bundle", f.root + "/nope"])
        #expect(missing.status == 4, "\(missing)")
    }

    /// swift-corelibs-foundation's own layouts: a freestanding bundle (`Name.so` beside
    /// `Name.resources/`), an FHS bundle (`prefix/lib/libName.so`, `prefix/share/Name.resources/`)
    /// and a SwiftPM resource bundle (flat, an Info.plist with only the development region,
    /// lower-cased lproj names, a `.copy` folder kept whole).
    static let linuxFiles: [String: String] = [
        "opt/Tool/Name.so": "",
        "opt/Tool/Name.resources/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.name"]),
        "opt/Tool/Name.resources/data.json": "",
        "opt/Tool/Name.resources/en.lproj/Localizable.strings": "\"a\" = \"A\";",
        "opt/Tool/Name.resources/fr.lproj/Localizable.strings": "\"a\" = \"A\";",
        "usr/local/lib/libKit.so": "",
        "usr/local/share/Kit.resources/kit.png": "",
        "usr/local/share/Kit.resources/Sub/deep.txt": "",
        "usr/local/share/Kit.resources/de.lproj/Only.txt": "",
        "app/.build/release/App": "",
        "app/.build/release/Atlas_AtlasUI.resources/Info.plist": infoPlist(["CFBundleDevelopmentRegion": "en"]),
        "app/.build/release/Atlas_AtlasUI.resources/map.png": "",
        "app/.build/release/Atlas_AtlasUI.resources/zh-hans.lproj/Localizable.strings": "\"a\" = \"A\";",
        "app/.build/release/Atlas_AtlasUI.resources/en.lproj/Localizable.strings": "\"a\" = \"A\";",
        "app/.build/release/Atlas_AtlasUI.resources/Tiles/z1/t.png": "",
    ]

    @Test("freestanding, FHS and SwiftPM resource bundles answer as Foundation's Bundle(path:) and Bundle(url:)")
    func foundationLinuxLayouts() throws {
        let f = try BundleFixture(Self.linuxFiles)
        try f.build()
        let paths = try f.reader().bundles().map { String($0.bundlePath.dropFirst(f.root.count + 1)) }
        #expect(paths == ["app/.build/release/Atlas_AtlasUI.resources", "opt/Tool/Name.resources", "usr/local/share/Kit.resources"])
        for bundle in paths {
            let path = f.root + "/" + bundle
            let differences = try foundationDifferences(bundleAt: path, index: f.indexPath)
            #expect(differences.isEmpty, "\(bundle): \(differences)")
            // Bundle(url:) opens the URL's path: the same bundle, the same answers.
            let byURL = try #require(Bundle(url: URL(fileURLWithPath: path)))
            let mine = try #require(try f.reader().bundle(atPath: path, context: .foundationLinux))
            #expect(byURL.resourcePath == mine.resourcePath)
            #expect(byURL.paths(forResourcesOfType: nil, inDirectory: nil).sorted()
                    == (try mine.paths(forResourcesOfType: nil, inDirectory: nil)).sorted())
        }
        #expect(try f.bundle("usr/local/share/Kit.resources").rel("deep", "txt", dir: "Sub") == "Sub/deep.txt")
        #expect(try f.bundle("opt/Tool/Name.resources").bundleIdentifier == "org.example.name")
    }
}
