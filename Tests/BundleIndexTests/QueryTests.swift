// The search pattern, one rule per test, on tiny bundles; each test name starts with the
// section or label of docs/search-pattern.md it checks. Breadth comes from ConformanceTests;
// these pin the rules a reader of docs/search-pattern.md expects.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Query rules (foundation-linux)")
struct QueryTests {
    static let macApp = [
        "Mac.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.mac", "CFBundleDevelopmentRegion": "fr"]),
        "Mac.app/Contents/Resources/g.txt": "global",
        "Mac.app/Contents/Resources/fr.lproj/g.txt": "fr copy",
        "Mac.app/Contents/Resources/fr.lproj/f.txt": "fr only",
        "Mac.app/Contents/Resources/en.lproj/e.txt": "en only",
        "Mac.app/Contents/Resources/Base.lproj/Main.nib": "base",
        "Mac.app/Contents/Resources/fr.lproj/Main.nib": "fr nib",
        "Mac.app/Contents/Resources/Base.lproj/b.txt": "base",
        "Mac.app/Contents/Resources/Images/i.png": "",
        "Mac.app/Contents/Resources/Icon.png": "",
    ]

    @Test("Search order: global resources win over localized copies")
    func globalFirst() throws {
        let b = try BundleFixture(Self.macApp).bundle("Mac.app")
        #expect(try b.rel("g", "txt") == "Contents/Resources/g.txt")
    }

    @Test("Search order: then the development region's lproj (S0), then Base.lproj")
    func developmentRegionThenBase() throws {
        let b = try BundleFixture(Self.macApp).bundle("Mac.app")
        #expect(try b.rel("f", "txt") == "Contents/Resources/fr.lproj/f.txt")
        #expect(try b.rel("Main", "nib") == "Contents/Resources/fr.lproj/Main.nib")
        #expect(try b.rel("b", "txt") == "Contents/Resources/Base.lproj/b.txt")
        #expect(b.languageSearchList == ["fr"])
    }

    @Test("L-one-language: on Linux other lprojs are never searched")
    func otherLprojsUnreachable() throws {
        let b = try BundleFixture(Self.macApp).bundle("Mac.app")
        #expect(try b.rel("e", "txt") == nil)
        #expect(try b.rel("e", "txt", loc: "en") == "Contents/Resources/en.lproj/e.txt")
    }

    @Test("Lookup arguments: lookups are case-sensitive")
    func caseSensitive() throws {
        let b = try BundleFixture(Self.macApp).bundle("Mac.app")
        #expect(try b.rel("Icon", "png") == "Contents/Resources/Icon.png")
        #expect(try b.rel("icon", "png") == nil)
        #expect(try b.rel("Icon", "PNG") == nil)
    }

    @Test("forLocalization is literal: the lproj name as given; nil means global only")
    func explicitLocalization() throws {
        let b = try BundleFixture(Self.macApp).bundle("Mac.app")
        #expect(try b.rel("f", "txt", loc: "fr") == "Contents/Resources/fr.lproj/f.txt")
        #expect(try b.rel("f", "txt", loc: "French") == nil)
        #expect(try b.rel("f", "txt", loc: nil) == nil)
        #expect(try b.rel("g", "txt", loc: "en") == "Contents/Resources/g.txt")
        #expect(try b.rel("b", "txt", loc: "fr") == nil, "no Base.lproj fallback for an explicit localization")
    }

    @Test("Platform and device variants: a -linux platform variant replaces the plain file in the same directory")
    func platformVariant() throws {
        let f = try BundleFixture([
            "P.app/Info.plist": infoPlist(["CFBundleIdentifier": "p"]),
            "P.app/logo.png": "", "P.app/logo-linux.png": "", "P.app/logo-macos.png": "",
            "P.app/icon.png": "", "P.app/icon~ipad.png": "", "P.app/only~ipad.png": "",
            "P.app/en.lproj/logo-linux.png": "",
        ])
        let b = try f.bundle("P.app")
        #expect(try b.rel("logo", "png") == "logo-linux.png")
        #expect(try b.rel("logo-macos", "png") == "logo-macos.png")
        #expect(try b.rel("icon", "png") == "icon.png", "device modifiers mean nothing on Linux (L-linux-variants)")
        #expect(try b.rel("only", "png") == nil)
        #expect(try b.rel("only~ipad", "png") == "only~ipad.png")
    }

    @Test("Type hiding: paths(forResourcesOfType:) lists the global run, then S0 and Base runs")
    func typeListing() throws {
        let b = try BundleFixture(Self.macApp).bundle("Mac.app")
        #expect(try b.rels("txt") == ["Contents/Resources/g.txt", "Contents/Resources/fr.lproj/f.txt",
                                     "Contents/Resources/fr.lproj/g.txt", "Contents/Resources/Base.lproj/b.txt"])
        #expect(try b.rels("png", dir: "Images") == ["Contents/Resources/Images/i.png"])
        #expect(try b.rels("lproj") == ["Contents/Resources/Base.lproj", "Contents/Resources/en.lproj",
                                       "Contents/Resources/fr.lproj"])
    }

    @Test("Type hiding: a type-only lookup returns the first entry of the first directory that has one")
    func typeOnlyLookup() throws {
        let b = try BundleFixture(Self.macApp).bundle("Mac.app")
        #expect(try b.rel(nil, "nib") == "Contents/Resources/fr.lproj/Main.nib")
        #expect(try b.rel(nil, nil) == nil, "Swift's Bundle answers nil when name and type are both missing")
    }

    @Test("Version-0 root fallback: version-0 bundles fall back to the bundle root on a miss")
    func versionZeroFallback() throws {
        let f = try BundleFixture([
            "Kit.framework/Versions/A/Resources/Info.plist": infoPlist(["CFBundleIdentifier": "kit"]),
            "Kit.framework/Versions/A/Resources/img.png": "",
            "Kit.framework/Versions/A/Kit": "binary",
        ], links: ["Kit.framework/Versions/Current": "A",
                   "Kit.framework/Resources": "Versions/Current/Resources",
                   "Kit.framework/Kit": "Versions/Current/Kit"])
        let b = try f.bundle("Kit.framework")
        #expect(b.layout == .resources)
        #expect(try b.rel("img", "png") == "Resources/img.png")
        #expect(try b.rel("Kit", nil) == "Kit")
        #expect(try b.rel("Kit", nil, dir: "Versions/A") == "Versions/A/Kit")
        #expect(b.bundleIdentifier == "kit")
    }

    @Test("Returned paths: directories are resources; only real directories get a directory URL")
    func directoriesAsResources() throws {
        let f = try BundleFixture(["D.app/Info.plist": infoPlist([:]), "D.app/Images/x.png": ""],
                                  links: ["D.app/Linked": "Images"])
        let b = try f.bundle("D.app")
        #expect(try b.resource(named: "Images", ofType: nil).map { [$0.relativePath, "\($0.isDirectory)"] } == ["Images", "true"])
        #expect(try b.resource(named: "Linked", ofType: nil).map { [$0.relativePath, "\($0.isDirectory)"] } == ["Linked", "false"])
        #expect(try b.rel("x", "png", dir: "Linked") == "Linked/x.png")
    }

    @Test("query names and directories never lead outside the bundle")
    func hostileArguments() throws {
        let f = try BundleFixture(["In.app/Info.plist": infoPlist([:]), "In.app/a.txt": "", "secret.txt": "outside"])
        let b = try f.bundle("In.app")
        #expect(try b.rel("secret", "txt", dir: "..") == nil)
        #expect(try b.rel("../secret", "txt") == nil)
        #expect(try b.rel("secret", "txt", dir: "a/../..") == nil)
        #expect(try b.rels("txt", dir: "../") == [])
        #expect(try b.rel("", "") == nil)
        #expect(try b.rel("a\u{0}", "txt") == nil)
        #expect(try b.rel("/", nil) == nil)
        #expect(try b.rel("a", "txt", dir: "Nope/..") == nil, "x/.. resolves only when x is a directory")
        #expect(try b.rel("a", "txt", dir: "./") == "./a.txt")
    }

    @Test("The localization list: plist list, lproj names in readdir order (Foundation's), dev region appended when Base exists")
    func localizations() throws {
        let f = try BundleFixture([
            "L.app/Contents/Info.plist": infoPlist(["CFBundleDevelopmentRegion": "it", "CFBundleLocalizations": ["en", "", "ja"]]),
            "L.app/Contents/Resources/Base.lproj/": "", "L.app/Contents/Resources/en.lproj/": "",
            "L.app/Contents/Resources/de.lproj/": "",
        ])
        let b = try f.bundle("L.app")
        #expect(b.localizations.prefix(2) == ["en", "ja"] && b.localizations.last == "it")
        #expect(b.localizations.dropFirst(2).dropLast().sorted() == ["Base", "de", "en"])
        // The lproj part in the order the file system lists the folders, as Foundation has it.
        let foundation = try #require(Bundle(path: f.root + "/L.app"))
        #expect(b.localizations == foundation.localizations)
        #expect(b.developmentLocalization == "it")
        #expect(b.preferredLocalizations == ["en"])
        // The apple profile keeps byte order, the same on every file system.
        #expect(try f.bundle("L.app", context: .apple(languages: ["en"])).localizations == ["en", "ja", "Base", "de", "en", "it"])
    }

    @Test("L-development-trap: a missing development region is nil, not a trap")
    func noDevelopmentRegion() throws {
        let b = try BundleFixture(["N.app/Info.plist": infoPlist(["CFBundleIdentifier": "n"])]).bundle("N.app")
        #expect(b.developmentLocalization == nil)
        #expect(b.languageSearchList == ["en"])
    }

    @Test("Localized Info dictionary: object(forInfoDictionaryKey:) prefers InfoPlist.strings; Linux has no fallback (L-no-info-fallback)")
    func localizedInfo() throws {
        let f = try BundleFixture([
            "S.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "s", "CFBundleName": "S", "CFBundleDevelopmentRegion": "en"]),
            "S.app/Contents/Resources/en.lproj/InfoPlist.strings": "\"CFBundleName\" = \"Localized\";\n",
        ])
        let b = try f.bundle("S.app")
        #expect(try b.object(forInfoDictionaryKey: "CFBundleName") == .string("Localized"))
        #expect(try b.object(forInfoDictionaryKey: "CFBundleIdentifier") == nil)
        #expect(b.infoDictionary["CFBundleName"] == .string("S"))
    }

    @Test("CFBundleNumericVersion: CFBundleVersion strings produce CFBundleNumericVersion")
    func numericVersion() {
        #expect(BundleMetadata.versionNumber("1.2.3") == 0x0123_8000)
        #expect(BundleMetadata.versionNumber("2.0b3") == 0x0200_6003)
        #expect(BundleMetadata.versionNumber("42") == 0x4200_8000)
        #expect(BundleMetadata.versionNumber("1.2.3.4") == 0)
        #expect(BundleMetadata.versionNumber("") == 0)
    }

    @Test("bundles are found by path, through links, and by identifier")
    func bundleReferences() throws {
        let f = try BundleFixture(Self.macApp, links: ["Alias.app": "Mac.app"])
        try f.build()
        let r = try f.reader()
        #expect(try r.bundle(atPath: f.root + "/Mac.app")?.bundleIdentifier == "com.example.mac")
        #expect(try r.bundle(atPath: f.root + "/Alias.app")?.bundlePath == f.root + "/Mac.app")
        #expect(try r.bundle(identifier: "com.example.mac")?.bundlePath == f.root + "/Mac.app")
        #expect(try r.bundle("com.example.mac") != nil)
        #expect(try r.bundle("com.example.none") == nil)
    }
}
