// What a reader's bundles share of their plans (`SharedPlanParts`): the search steps, made once
// per layout and search list, and the apple profile's search lists and preferred localizations,
// told apart byte for byte and equal to what each bundle would make alone. Then the opening of
// a bundle, by path and by identifier, which makes and keeps them.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Shared search steps")
struct SearchStepsTests {
    private func paths(_ steps: SearchSteps) -> [[UInt8]] { steps.directories.map { Array($0.path.utf8) } }

    @Test("one layout and search list: the steps are made once and shared")
    func shared() {
        let table = SharedPlanParts()
        let first = table.steps(layout: .contents, searchList: ["de", "en"])
        let again = table.steps(layout: .contents, searchList: ["de", "en"])
        #expect(first.directories.withUnsafeBufferPointer { $0.baseAddress }
            == again.directories.withUnsafeBufferPointer { $0.baseAddress })
        #expect(first.steps.map(\.lproj) == [nil, "de", "Base", "en"])
        #expect(first.steps.map(\.firstLproj) == [false, true, true, false])
        #expect(first.directories.map(\.path)
            == ["Contents/Resources", "Contents/Resources/de.lproj", "Contents/Resources/Base.lproj", "Contents/Resources/en.lproj"])
        #expect(first.prefixes == ["", "de.lproj/", "Base.lproj/", "en.lproj/"])
        #expect(first.longestDirectory == "Contents/Resources/Base.lproj".utf8.count)
        #expect(first.directories.map(\.hash) == first.directories.map { Hashing.directory($0.path) })
    }

    @Test("another layout, order or spelling gets steps of its own")
    func apart() {
        let table = SharedPlanParts()
        let composed = "\u{E9}", decomposed = "e\u{301}"  // equal as Strings, not as file names
        let a = table.steps(layout: .resources, searchList: [composed])
        let b = table.steps(layout: .resources, searchList: [decomposed])
        #expect(paths(a)[1] == Array("Resources/\(composed).lproj".utf8))
        #expect(paths(b)[1] == Array("Resources/\(decomposed).lproj".utf8))
        #expect(paths(table.steps(layout: .flat, searchList: [composed]))[1] == Array("\(composed).lproj".utf8))
        #expect(table.steps(layout: .resources, searchList: ["en", "de"]).steps.map(\.lproj) == [nil, "en", "Base", "de"])
        #expect(table.steps(layout: .resources, searchList: ["de", "en"]).steps.map(\.lproj) == [nil, "de", "Base", "en"])
        #expect(table.steps(layout: .resources, searchList: []).steps.map(\.lproj) == [nil, "Base"])
    }

    @Test("past its capacity it starts again and still answers right")
    func bounded() {
        let table = SharedPlanParts()
        for n in 0..<200 {
            let language = "l\(n)"
            #expect(table.steps(layout: .contents, searchList: [language]).directories[1].path
                == "Contents/Resources/\(language).lproj")
        }
    }

    @Test("a language search list and the preferred localizations are the matcher's, made once per localizations, region and preferences")
    func searchLists() {
        let table = SharedPlanParts()
        let cases: [([String], String?, [String])] = [
            (["de", "en", "fr"], "en", ["fr"]), (["de", "en", "fr"], "en", ["de"]), (["de", "en", "fr"], nil, ["de"]),
            (["de", "en", "fr"], "fr", ["de"]), (["de", "en"], "fr", ["de"]), (["de", "en", "fr"], "", ["de"]),
            (["en"], "en", []), ([], nil, ["en"]), (["pt_BR", "pt_PT"], "en", ["pt-PT"]),
            (["\u{E9}"], "\u{E9}", ["en"]), (["e\u{301}"], "e\u{301}", ["en"]),
        ]
        for _ in 0..<2 {
            for (localizations, region, preferences) in cases {
                let expected = LanguageMatcher.bundleSearchList(localizations: localizations, developmentRegion: region,
                                                                preferences: preferences)
                let shared = table.searchList(localizations: localizations, developmentRegion: region, preferences: preferences)
                #expect(shared.map { Array($0.utf8) } == expected.map { Array($0.utf8) },
                        "\(localizations) \(region ?? "nil") \(preferences)")
                let preferred = table.preferredLocalizations(from: localizations, preferences: preferences)
                #expect(preferred.map { Array($0.utf8) }
                        == LanguageMatcher.preferredLocalizations(from: localizations, preferences: preferences).map { Array($0.utf8) })
            }
        }
    }
}

@Suite("Opening a bundle by path or identifier")
struct OpenByPathTests {
    @Test("a bundle named through a link opens as its real path does; a link to a folder not indexed opens nothing")
    func throughLink() throws {
        let f = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "a", "CFBundleDevelopmentRegion": "de"]),
            "A.app/a.txt": "a", "A.app/de.lproj/b.txt": "b",
            "Other/c.txt": "c",
        ])
        try f.build()
        let links = makeTempDirectory(prefix: "links")
        defer { try? FileManager.default.removeItem(atPath: links) }
        try FileManager.default.createSymbolicLink(atPath: links + "/A.app", withDestinationPath: f.root + "/A.app")
        try FileManager.default.createSymbolicLink(atPath: links + "/Other", withDestinationPath: f.root + "/Other")
        for remembering in [true, false] {
            let reader = try f.reader()
            let linked = try #require(try reader.bundle(atPath: links + "/A.app", context: .foundationLinux, remembering: remembering))
            let real = try #require(try reader.bundle(atPath: f.root + "/A.app", context: .foundationLinux, remembering: remembering))
            #expect(linked.bundlePath == real.bundlePath)
            #expect(try linked.path(forResource: "a", ofType: "txt") == f.root + "/A.app/a.txt")
            #expect(try linked.path(forResource: "b", ofType: "txt") == f.root + "/A.app/de.lproj/b.txt")
            #expect(try linked.path(forResource: "b", ofType: "txt") == real.path(forResource: "b", ofType: "txt"))
            #expect(try reader.bundle(atPath: links + "/Other", context: .foundationLinux, remembering: remembering) == nil)
            #expect(try reader.bundle(atPath: links + "/Missing.app", context: .foundationLinux, remembering: remembering) == nil)
        }
    }

    @Test("bundles of one layout and search list share their steps; each still answers from its own folders")
    func sharedSteps() throws {
        let f = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleDevelopmentRegion": "de"]), "A.app/de.lproj/x.txt": "a",
            "B.app/Info.plist": infoPlist(["CFBundleDevelopmentRegion": "de"]), "B.app/x.txt": "b",
            "C.app/Info.plist": infoPlist(["CFBundleDevelopmentRegion": "fr"]), "C.app/fr.lproj/x.txt": "c",
        ])
        try f.build()
        let reader = try f.reader()
        let a = try #require(try reader.bundle(atPath: f.root + "/A.app", context: .foundationLinux))
        let b = try #require(try reader.bundle(atPath: f.root + "/B.app", context: .foundationLinux))
        let c = try #require(try reader.bundle(atPath: f.root + "/C.app", context: .foundationLinux))
        #expect(a.plan.plainDirectories.withUnsafeBufferPointer { $0.baseAddress }
            == b.plan.plainDirectories.withUnsafeBufferPointer { $0.baseAddress })
        #expect(c.plan.plainDirectories.map(\.path) == ["", "fr.lproj", "Base.lproj"])
        #expect(try a.path(forResource: "x", ofType: "txt") == f.root + "/A.app/de.lproj/x.txt")
        #expect(try b.path(forResource: "x", ofType: "txt") == f.root + "/B.app/x.txt")
        #expect(try c.path(forResource: "x", ofType: "txt") == f.root + "/C.app/fr.lproj/x.txt")
    }

    @Test("under the apple profile a bundle's preferred localizations are the matcher's, asked once or again")
    func preferredUnderApple() throws {
        let f = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleDevelopmentRegion": "en"]),
            "A.app/de.lproj/x.txt": "", "A.app/en.lproj/x.txt": "", "A.app/fr.lproj/x.txt": "",
            "B.app/Info.plist": infoPlist(["CFBundleDevelopmentRegion": "en"]),
            "B.app/de.lproj/x.txt": "", "B.app/en.lproj/x.txt": "", "B.app/fr.lproj/x.txt": "",
        ])
        try f.build()
        let reader = try f.reader()
        for languages in [["fr"], ["de", "fr"], ["ja"]] {
            let context = SearchContext.apple(languages: languages)
            for name in ["A.app", "B.app", "A.app"] {
                let bundle = try #require(try reader.bundle(atPath: f.root + "/" + name, context: context))
                let expected = LanguageMatcher.preferredLocalizations(from: bundle.localizations, preferences: languages)
                #expect(bundle.preferredLocalizations == expected, "\(name) \(languages)")
                #expect(bundle.preferredLocalizations == [languages[0] == "ja" ? "en" : languages[0]], "\(name) \(languages)")
            }
        }
    }

    @Test("a bundle opened by identifier again is the one opened before, until a commit changes who declares it")
    func byIdentifierRemembered() throws {
        let f = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.x"]), "A.app/a.txt": "a",
            "B.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.y"]), "B.app/b.txt": "b",
        ])
        try f.build()
        let reader = try f.reader()
        let first = try #require(try reader.bundle(identifier: "org.example.x", context: .foundationLinux))
        let again = try #require(try reader.bundle(identifier: "org.example.x", context: .foundationLinux))
        #expect(first.plan === again.plan)
        #expect(again.bundlePath == f.root + "/A.app")
        let other = try #require(try reader.bundle(identifier: "org.example.x", context: .apple(languages: ["en"])))
        #expect(other.plan !== first.plan, "another context gets a plan of its own")
        let unremembered = try #require(try reader.bundle(identifier: "org.example.x", context: .foundationLinux, remembering: false))
        #expect(unremembered.plan !== first.plan)
        // The identifier moves to B.app: the next open by identifier sees it.
        try f.add(["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.z"]),
                   "B.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.x"])])
        try f.build()
        let moved = try #require(try reader.bundle(identifier: "org.example.x", context: .foundationLinux))
        #expect(moved.bundlePath == f.root + "/B.app")
        #expect(try moved.path(forResource: "b", ofType: "txt") == f.root + "/B.app/b.txt")
        #expect(try reader.bundle(identifier: "org.example.y", context: .foundationLinux) == nil)
        #expect(try reader.bundle("org.example.z", context: .foundationLinux)?.bundlePath == f.root + "/A.app")
    }
}
