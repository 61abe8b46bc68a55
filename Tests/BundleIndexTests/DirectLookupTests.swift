// The allocation-free lookup (Query/DirectLookup.swift) must be a shortcut, never a different
// answer: it is checked against the general lookup on every path query of the generated
// conformance bundles, under both profiles, and on the cases it must leave alone.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Allocation-free lookup")
struct DirectLookupTests {
    @Test("only plain names, types and subdirectories take the shortcut")
    func acceptedQueries() {
        let accepted: [(String?, String?, String?)] = [
            ("Icon", "png", nil), ("Icon.png", nil, nil), ("Icon", ".png", nil), ("Icon", "", ""),
            ("a", "b", "Images"), ("a", "b", "Images/Small"), ("...", nil, "x.lproj"), ("a", "..", nil),
        ]
        for (name, type, dir) in accepted {
            #expect(DirectLookup.accepts(name: name, type: type, subdirectory: dir), "\(String(describing: (name, type, dir)))")
        }
        let refused: [(String?, String?, String?)] = [
            (nil, "png", nil), ("", "png", nil), (".", nil, nil), ("..", "png", nil), ("a/b", nil, nil), ("dir/", nil, nil),
            ("a", "b/c", nil), ("a", "b", "/Images"), ("a", "b", "Images/"), ("a", "b", "x//y"),
            ("a", "b", "../x"), ("a", "b", "x/.."), ("a", "b", "./x"), ("a", "b", "."),
        ]
        for (name, type, dir) in refused {
            #expect(!DirectLookup.accepts(name: name, type: type, subdirectory: dir), "\(String(describing: (name, type, dir)))")
        }
    }

    @Test("answers as the general lookup on every generated path query, both profiles")
    func sameAnswersAsGeneralLookup() throws {
        var compared = 0, shortcut = 0, found = 0
        try forEachGeneratedBundle { bundleName, bundle, cases in
            for c in cases {
                guard let q = c["q"] as? [String: Any], ["path", "url"].contains(q["op"] as? String),
                      q["loc"] == nil else { continue }
                let (name, type, dir) = (q["name"] as? String, q["type"] as? String, q["dir"] as? String)
                let general = try bundle.hit(name, type, dir, .unspecified)
                let generalPath = general.map(bundle.absolute)
                #expect(try bundle.path(forResource: name, ofType: type, inDirectory: dir) == generalPath,
                        "\(bundleName) \(String(describing: q))")
                #expect(try bundle.resource(named: name, ofType: type, inDirectory: dir) == general)
                let bytes = try bundle.withPath(forResource: name, ofType: type, inDirectory: dir) { String(decoding: $0, as: UTF8.self) }
                #expect(bytes == generalPath)
                compared += 1
                if let name, DirectLookup.accepts(name: name, type: type, subdirectory: dir) { shortcut += 1 }
                if general != nil { found += 1 }
            }
        }
        // The corpus must exercise the shortcut, with hits and misses.
        #expect(compared > 1000 && shortcut > compared / 3 && found > shortcut / 10, "\(compared) \(shortcut) \(found)")
    }

    @Test("paths(forResourcesOfType:) and resources(ofType:) spelled directly answer as the general array lookup, both profiles")
    func arrayPathsAsGeneralLookup() throws {
        var compared = 0, nonEmpty = 0
        let oddSubdirectories: [String?] = [nil, "", ".", "..", "./x", "x/..", "/", "a//b", "en.lproj", "English.lproj/"]
        let localizations: [ResourceLookup.Localization] = [
            .unspecified, .given(nil), .given(""), .given("en"), .given("fr"), .given("English"), .given("German"),
            .given("Base"), .given("x/.."), .given("../en"), .given("é"),
        ]
        try forEachGeneratedBundle { bundleName, bundle, cases in
            var types: Set<String?> = [nil, "", ".png", "lproj"]
            var subdirectories = Set(oddSubdirectories)
            for c in cases {
                guard let q = c["q"] as? [String: Any] else { continue }
                types.insert(q["type"] as? String)
                subdirectories.insert(q["dir"] as? String)
            }
            // A sample of each (all of them took a minute): the odd ones first.
            let byText = { (a: String?, b: String?) in (a ?? "") < (b ?? "") }
            for type in types.sorted(by: byText).prefix(8) {
                for subdirectory in oddSubdirectories + subdirectories.subtracting(oddSubdirectories).sorted(by: byText).prefix(4) {
                    for localization in localizations {
                        let general = try bundle.generalHits(type, subdirectory, localization)
                        let paths: [String], hits: [ResourceHit]
                        if case .given(let l) = localization {
                            paths = try bundle.paths(forResourcesOfType: type, inDirectory: subdirectory, forLocalization: l)
                            hits = try bundle.resources(ofType: type, inDirectory: subdirectory, forLocalization: l)
                        } else {
                            paths = try bundle.paths(forResourcesOfType: type, inDirectory: subdirectory)
                            hits = try bundle.resources(ofType: type, inDirectory: subdirectory)
                        }
                        let query = "\(bundleName) \(String(describing: (type, subdirectory, localization)))"
                        #expect(paths == general.map(\.path), "\(query)")
                        #expect(hits == general, "\(query)")
                        compared += 1
                        if !general.isEmpty { nonEmpty += 1 }
                    }
                }
            }
        }
        #expect(compared > 5000 && nonEmpty > compared / 10, "\(compared) \(nonEmpty)")
    }

    @Test("paths(…forLocalization:) counts what follows `.lproj` in UTF-16 code units, as CF does")
    func arrayPathsLprojSubstring() throws {
        // A global name with `.lproj` inside counts as localized when two or more UTF-16 code
        // units follow it: `é` is one (two UTF-8 bytes), an emoji two.
        for global in ["p.lprojé", "p.lproj😀", "p.lprojab", "p.lproja", "é.lproj/x.png"] {
            let f = try BundleFixture([
                "A.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "a"]),
                "A.bundle/\(global)": "g",
                "A.bundle/en.lproj/l.png": "l",
                "A.bundle/fr.lproj/m.png": "m",
                "A.bundle/zz.txt": "z",
            ])
            let bundle = try f.bundle("A.bundle")
            let foundation = try #require(Bundle(path: f.root + "/A.bundle"))
            for l in [nil, "en", "fr", "p"] as [String?] {
                for type in [nil, "png", "txt"] as [String?] {
                    let general = try bundle.generalHits(type, nil, .given(l)).map(\.path)
                    #expect(foundation.paths(forResourcesOfType: type, inDirectory: nil, forLocalization: l).sorted() == general.sorted(),
                            "Foundation: \(global) \(String(describing: (l, type)))")
                    #expect(try bundle.resources(ofType: type, inDirectory: nil, forLocalization: l).map(\.path) == general)
                    #expect(try bundle.paths(forResourcesOfType: type, inDirectory: nil, forLocalization: l) == general,
                            "\(global) \(String(describing: (l, type)))")
                }
            }
        }
    }

    @Test("forLocalization: compares the language with lproj names code unit for code unit, as CF does")
    func localizationComparedByCodeUnits() throws {
        // `é` as one scalar and as `e` + combining accent: equal as Swift strings, not for CF.
        let composed = "\u{E9}", decomposed = "e\u{301}"
        func scalars(_ s: String) -> String { s.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: "+") }
        // Folders: one spelling, the other, or both (x.txt and sub/y.txt in each); the
        // development region and the language asked in either spelling.
        let cases = [[decomposed], [composed], [composed, decomposed], [decomposed, composed]].flatMap { folders in
            [composed, decomposed].flatMap { region in [composed, decomposed].map { (folders, region, $0) } }
        }
        for (folders, region, asked) in cases {
            var files = ["A.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "a", "CFBundleDevelopmentRegion": region]),
                         "A.bundle/g.txt": "g"]
            for folder in folders {
                files["A.bundle/\(folder).lproj/x.txt"] = "x"
                files["A.bundle/\(folder).lproj/sub/y.txt"] = "y"
            }
            let f = try BundleFixture(files)
            let bundle = try f.bundle("A.bundle")
            let foundation = try #require(Bundle(path: f.root + "/A.bundle"))
            let label = "folders \(folders.map(scalars)), region \(scalars(region)), asked \(scalars(asked))"
            for (name, sub) in [("x", nil), ("y", "sub"), ("g", nil)] as [(String, String?)] {
                #expect(try bundle.path(forResource: name, ofType: "txt", inDirectory: sub, forLocalization: asked)
                        == foundation.path(forResource: name, ofType: "txt", inDirectory: sub, forLocalization: asked),
                        "\(label): path \(name)")
                #expect(try bundle.paths(forResourcesOfType: "txt", inDirectory: sub, forLocalization: asked).sorted()
                        == foundation.paths(forResourcesOfType: "txt", inDirectory: sub, forLocalization: asked).sorted(),
                        "\(label): paths in \(sub ?? "nil")")
                #expect(try bundle.path(forResource: name, ofType: "txt", inDirectory: sub)
                        == foundation.path(forResource: name, ofType: "txt", inDirectory: sub), "\(label): path \(name), search list")
            }
        }
    }

    @Test("a root entry is ruled out for a name only when it is neither the name nor a variant of it, for every target")
    func rootEntriesKeepEveryVariant() {
        // Every entry made of these pieces, and what each target strips it to.
        let pieces = ["a", ".", "-linux", "~ipad", "-iphoneos", "~", "b", "-", ".png"]
        var entries = pieces
        for _ in 0..<2 { entries = entries.flatMap { e in pieces.map { e + $0 } } }
        var variants = 0
        for entry in entries {
            #expect(couldAnswer(entry, entry))
            for target in VariantSuffixes.allTargets {
                guard let stripped = target.analyse(entry).stripped, !stripped.isEmpty else { continue }
                variants += 1
                #expect(couldAnswer(entry, stripped),
                        "\(entry) strips to \(stripped)")
            }
        }
        #expect(variants > 500, "\(variants)")
        for (entry, name) in [("fr.lproj", "f.txt"), ("logo.png", "logo"), ("logos.png", "logo.png"), ("xlogo.png", "logo.png"),
                              ("logo.png-linux", "logo"), ("a-linux.b", "a.c")] {
            #expect(!couldAnswer(entry, name), "\(entry) \(name)")
        }
        func couldAnswer(_ entry: String, _ name: String) -> Bool {
            entry.withUTF8Bytes { e in name.withUTF8Bytes { SearchBase.couldAnswer(UnsafeRawBufferPointer(e), UnsafeRawBufferPointer($0)) } }
        }
    }

    @Test("version-0 root fallback: the root's listing narrows the steps read, never the answers")
    func rootFallbackNarrowing() throws {
        let f = try BundleFixture([
            "Old.bundle/Resources/Info.plist": infoPlist(["CFBundleIdentifier": "old", "CFBundleDevelopmentRegion": "fr"]),
            "Old.bundle/Resources/a.txt": "", "Old.bundle/Resources/fr.lproj/r.txt": "",
            "Old.bundle/logo-linux.png": "", "Old.bundle/icon~ipad.png": "", "Old.bundle/x.y-linux.tar.gz": "",
            "Old.bundle/.hidden-linux.png": "", "Old.bundle/-linux.png": "",
            "Old.bundle/fr.lproj/f.txt": "", "Old.bundle/Extra/e.txt": "", "Old.bundle/fr.lproj/Extra/g.txt": "",
        ])
        let queries: [(String, String?, String?)] = [
            ("logo", "png", nil), ("logo.png", nil, nil), ("icon", "png", nil), ("x.y", "tar.gz", nil), ("x", "y.tar.gz", nil),
            (".hidden", "png", nil), (".png", nil, nil), ("f", "txt", nil), ("r", "txt", nil), ("a", "txt", nil),
            ("e", "txt", "Extra"), ("g", "txt", "Extra"), ("e", "txt", "Nope"), ("nothing", "txt", nil), ("f", "txt", "fr.lproj"),
        ]
        for context in [SearchContext.foundationLinux, .apple(languages: ["fr"], platform: .ios, device: .ipad)] {
            let b = try f.bundle("Old.bundle", context: context)
            for (name, type, dir) in queries {
                let label = "\(context.profile) \(name) \(type ?? "-") \(dir ?? "-")"
                #expect(try b.resource(named: name, ofType: type, inDirectory: dir) == b.hit(name, type, dir, .unspecified), "\(label)")
                for l in ["fr", nil, "xx"] {
                    #expect(try b.resource(named: name, ofType: type, inDirectory: dir, forLocalization: l)
                            == b.hit(name, type, dir, .given(l)), "\(label) loc \(l ?? "nil")")
                }
            }
        }
        // Arrays: the direct spelling through the same fallback, found at the root.
        var fallbackHits = 0
        for context in [SearchContext.foundationLinux, .apple(languages: ["fr"], platform: .ios, device: .ipad)] {
            let b = try f.bundle("Old.bundle", context: context)
            for type in ["txt", "png", nil] as [String?] {
                for dir in [nil, "Extra", "Resources", "Resources/fr.lproj", "fr.lproj", "Nope"] as [String?] {
                    for loc in [.unspecified, .given("fr"), .given(nil), .given("xx")] as [ResourceLookup.Localization] {
                        let general = try b.generalHits(type, dir, loc)
                        let hits: [ResourceHit]
                        if case .given(let l) = loc { hits = try b.resources(ofType: type, inDirectory: dir, forLocalization: l) }
                        else { hits = try b.resources(ofType: type, inDirectory: dir) }
                        #expect(hits == general, "\(context.profile) \(type ?? "-") \(dir ?? "-") \(loc)")
                        if general.contains(where: { !$0.relativePath.hasPrefix("Resources") }) { fallbackHits += 1 }
                    }
                }
            }
        }
        #expect(fallbackHits > 10, "\(fallbackHits)")
        let linux = try f.bundle("Old.bundle")
        #expect(try linux.rel("logo", "png") == "logo-linux.png")
        #expect(try linux.rel("x.y", "tar.gz") == "x.y-linux.tar.gz")
        #expect(try linux.rel(".hidden", "png") == ".hidden-linux.png")
        #expect(try linux.rel("f", "txt") == "fr.lproj/f.txt")
        #expect(try linux.rel("e", "txt", dir: "Extra") == "Extra/e.txt")
        #expect(try linux.rel("g", "txt", dir: "Extra") == "fr.lproj/Extra/g.txt")
        #expect(try linux.rel("f", "txt", loc: "fr") == "fr.lproj/f.txt")
        #expect(try linux.rel("e", "txt", dir: "Nope") == nil)
    }

    @Test("forLocalization is literal: the shortcut answers as the general lookup on every generated query, both profiles")
    func localizedSameAnswersAsGeneralLookup() throws {
        var compared = 0, shortcut = 0, found = 0
        try forEachGeneratedBundle { bundleName, bundle, cases in
            // Every name of the file's path lookups, asked for every lproj of the bundle, none and nil.
            let queries = cases.compactMap { $0["q"] as? [String: Any] }.filter { ["path", "url"].contains($0["op"] as? String) }
            let localizations: [String?] = bundle.localizations.map { Optional($0) } + [nil, "", "xx", "Base"]
            for q in queries.prefix(40) {
                let (name, type, dir) = (q["name"] as? String, q["type"] as? String, q["dir"] as? String)
                for l in localizations {
                    let general = try bundle.hit(name, type, dir, .given(l))
                    #expect(try bundle.path(forResource: name, ofType: type, inDirectory: dir, forLocalization: l)
                            == general.map(bundle.absolute), "\(bundleName) \(String(describing: q)) loc \(String(describing: l))")
                    #expect(try bundle.resource(named: name, ofType: type, inDirectory: dir, forLocalization: l) == general)
                    compared += 1
                    if DirectLookup.accepts(name: name, type: type, subdirectory: dir, localization: l, plan: bundle.plan) {
                        shortcut += 1
                    }
                    if general != nil { found += 1 }
                }
            }
        }
        #expect(compared > 1000 && shortcut > compared / 3 && found > shortcut / 10, "\(compared) \(shortcut) \(found)")
    }

    @Test("forLocalization is literal: variants, dotted lproj names, nested language folders and misses leave the shortcut")
    func localizedEdgeCases() throws {
        let fixture = try BundleFixture([
            "L.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.l", "CFBundleDevelopmentRegion": "en"]),
            "L.app/global.txt": "", "L.app/en.lproj/a.txt": "", "L.app/fr.lproj/a.txt": "", "L.app/fr.lproj/only.txt": "",
            "L.app/de.lproj/v.png": "", "L.app/de.lproj/v-linux.png": "", "L.app/fr.lproj/de.lproj/nested.txt": "",
            "L.app/en.lproj/Sub/s.txt": "", "L.app/fr.lproj/Sub/s.txt": "", "L.app/en.lproj/en/q.txt": "",
            "L.app/en.lproj/e/r.txt": "", "L.app/fr.lproj/en.lp/t.txt": "",
            "D.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.d", "CFBundleDevelopmentRegion": "en"]),
            "D.app/en.x.lproj/a.txt": "", "D.app/en.lproj/a.txt": "",
        ])
        for context in [SearchContext.foundationLinux, .apple(languages: ["fr"])] {
            for bundleName in ["L.app", "D.app"] {
                let b = try fixture.bundle(bundleName, context: context)
                for (name, type, dir) in [("global", "txt", nil), ("a", "txt", nil), ("only", "txt", nil), ("v", "png", nil),
                                          ("nested", "txt", nil), ("s", "txt", "Sub"), ("missing", "txt", nil), ("a.txt", nil, nil),
                                          ("q", "txt", "en"), ("missing", "txt", "Sub"), ("r", "txt", "e"), ("t", "txt", "en.lp")]
                        as [(String, String?, String?)] {
                    for l in ["en", "fr", "de", "en.x", nil, "", "zz"] as [String?] {
                        let general = try b.hit(name, type, dir, .given(l)).map(b.absolute)
                        #expect(try b.path(forResource: name, ofType: type, inDirectory: dir, forLocalization: l) == general,
                                "\(bundleName) \(name) \(String(describing: dir)) loc \(String(describing: l))")
                    }
                }
            }
        }
        let l = try fixture.bundle("L.app", context: .foundationLinux)
        #expect(try l.path(forResource: "a", ofType: "txt", inDirectory: nil, forLocalization: "fr") == fixture.root + "/L.app/fr.lproj/a.txt")
        #expect(try l.path(forResource: "s", ofType: "txt", inDirectory: "Sub", forLocalization: "fr")
                == fixture.root + "/L.app/fr.lproj/Sub/s.txt")
        #expect(try l.readsForLookup(name: "a", type: "txt", subdirectory: nil, localization: .given("fr")) == 2,
                "a forLocalization: hit reads the global folder and the language folder")
        // A miss: the search list (global, en.lproj; no Base.lproj), then fr.lproj — CF's
        // second search — and nothing else: there is no en.lproj/fr.lproj to read.
        #expect(try l.readsForLookup(name: "missing", type: "txt", subdirectory: nil, localization: .given("fr")) == 3)
        #expect(try l.path(forResource: "missing", ofType: "txt", inDirectory: nil, forLocalization: "fr") == nil)
        // CF's substring test: with inDirectory "en", en.lproj/en/q.txt counts as global.
        #expect(try l.path(forResource: "q", ofType: "txt", inDirectory: "en", forLocalization: "fr")
                == fixture.root + "/L.app/en.lproj/en/q.txt")
        #expect(!DirectLookup.accepts(name: "a", type: "txt", subdirectory: nil, localization: "en",
                                      plan: try fixture.bundle("D.app", context: .foundationLinux).plan))
    }

    @Test("Version-0 root fallback: the shortcut answers as the general lookup, inDirectory Resources[/x] included")
    func versionZeroFallback() throws {
        let fixture = try BundleFixture([
            "Old.bundle/Resources/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.old", "CFBundleDevelopmentRegion": "en"]),
            "Old.bundle/Resources/a.txt": "", "Old.bundle/Resources/en.lproj/l.txt": "", "Old.bundle/Resources/fr.lproj/l.txt": "",
            "Old.bundle/Resources/Sub/s.txt": "", "Old.bundle/Resources/fr.lproj/Sub/s2.txt": "",
            "Old.bundle/top.txt": "", "Old.bundle/en.lproj/rootl.txt": "", "Old.bundle/fr.lproj/rootl.txt": "",
            "Old.bundle/Sub/rs.txt": "", "Old.bundle/fr.lproj/Sub/rs2.txt": "", "Old.bundle/v.png": "", "Old.bundle/v-linux.png": "",
        ])
        var compared = 0, found = 0
        for context in [SearchContext.foundationLinux, .apple(languages: ["fr"])] {
            let b = try fixture.bundle("Old.bundle", context: context)
            #expect(b.layout == .resources)
            for name in ["a", "l", "s", "s2", "top", "rootl", "rs", "rs2", "v", "missing"] {
                for dir in [nil, "Sub", "Resources", "Resources/Sub", "fr.lproj"] as [String?] {
                    let general = try b.hit(name, "txt", dir, .unspecified).map(b.absolute)
                        ?? b.hit(name, "png", dir, .unspecified).map(b.absolute)
                    let direct = try b.path(forResource: name, ofType: "txt", inDirectory: dir)
                        ?? b.path(forResource: name, ofType: "png", inDirectory: dir)
                    #expect(direct == general, "\(name) \(String(describing: dir))")
                    for l in ["en", "fr", "de", nil] as [String?] {
                        let general = try b.hit(name, "txt", dir, .given(l)).map(b.absolute)
                        #expect(try b.path(forResource: name, ofType: "txt", inDirectory: dir, forLocalization: l) == general,
                                "\(name) \(String(describing: dir)) loc \(String(describing: l))")
                        compared += 1
                        if general != nil { found += 1 }
                    }
                }
            }
        }
        #expect(compared == 400 && found > 40, "\(compared) \(found)")
        let b = try fixture.bundle("Old.bundle", context: .foundationLinux)
        #expect(try b.path(forResource: "rs2", ofType: "txt", inDirectory: "Sub", forLocalization: "fr")
                == fixture.root + "/Old.bundle/fr.lproj/Sub/rs2.txt")
    }

    @Test("Variants in one directory: device variants are chosen by the shortcut as by the general lookup")
    func deviceVariants() throws {
        let fixture = try BundleFixture([
            "Pad.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.pad"]),
            "Pad.app/Icon.png": "", "Pad.app/Icon~ipad.png": "", "Pad.app/Art/Icon~iphone.png": "", "Pad.app/Art/Icon.png": "",
        ])
        let pad = try fixture.bundle("Pad.app", context: .apple(languages: ["en"], platform: .ios, device: .ipad))
        #expect(try pad.path(forResource: "Icon", ofType: "png") == fixture.root + "/Pad.app/Icon~ipad.png")
        #expect(try pad.withPath(forResource: "Icon", ofType: "png") { String(decoding: $0, as: UTF8.self) }
                == fixture.root + "/Pad.app/Icon~ipad.png")
        #expect(try pad.path(forResource: "Icon", ofType: "png", inDirectory: "Art") == fixture.root + "/Pad.app/Art/Icon.png")
        let phone = try fixture.bundle("Pad.app", context: .apple(languages: ["en"], platform: .ios, device: .iphone))
        #expect(try phone.path(forResource: "Icon", ofType: "png", inDirectory: "Art") == fixture.root + "/Pad.app/Art/Icon~iphone.png")
        #expect(try phone.resource(named: "Icon", ofType: "png", inDirectory: "Art")?.relativePath == "Art/Icon~iphone.png")
    }

    /// The first 12 generated conformance bundles, each indexed afresh and opened under both
    /// profiles (foundation-linux, and apple on an iPad with French first): `body` gets the
    /// bundle's name, the bundle and the oracle's cases of its file.
    private func forEachGeneratedBundle(_ body: (_ name: String, _ bundle: IndexedBundle, _ cases: [[String: Any]]) throws -> Void) throws {
        let corpus = try Conformance.corpus.get()
        let contexts: [SearchContext] = [.foundationLinux, .apple(languages: ["fr", "en"], platform: .ios, device: .ipad)]
        for file in corpus.genFiles.prefix(12) {
            let root = (file as NSString).deletingLastPathComponent
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
            let bundleName = try #require(doc["bundle"] as? String)
            let cases = try #require(doc["cases"] as? [[String: Any]])
            let scratch = makeTempDirectory(prefix: "bundleidx-direct")
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            _ = try IndexBuilder.build(roots: [root], indexPath: scratch + "/index")
            let reader = try IndexReader(path: scratch + "/index")
            for context in contexts {
                try body(bundleName, try #require(try reader.bundle(atPath: root + "/" + bundleName, context: context)), cases)
            }
        }
    }
}
