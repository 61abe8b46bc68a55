// IndexedFoundationBundle (BundleIndexFoundation) must answer as Foundation's own `Bundle` of the
// same folder: every overridden method is asked the conformance corpus's queries on both, with
// the index holding the bundle, with no index and with an index that does not hold it.
import Foundation
import Testing
import BundleIndex
import BundleIndexFoundation

@Suite("Drop-in Foundation Bundle (IndexedFoundationBundle)",
       .enabled(if: Conformance.isLinux, "compares with Foundation-on-Linux's Bundle"))
struct FoundationDropInTests {
    @Test("answers as Foundation's Bundle on every corpus query, the bundle indexed")
    func indexedAgreesWithFoundation() throws {
        let corpus = try Conformance.corpus.get()
        var tally = DropInTally()
        for file in corpus.genFiles + corpus.devOnlyFiles + corpus.scenarioFiles {
            let folder = try CorpusFolder(file)
            let scratch = makeTempDirectory(prefix: "bundleidx-dropin")
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            _ = try IndexBuilder.build(roots: [folder.root], indexPath: scratch + "/index")
            let dropIn = IndexedFoundationBundle(path: folder.bundlePath, index: scratch + "/index")
            let reference = Bundle(path: folder.bundlePath)
            #expect((dropIn == nil) == (reference == nil), "\(folder.bundlePath): nil exactly when Bundle(path:) is")
            guard let dropIn, let reference else { continue }
            #expect(dropIn.isIndexed, "\(folder.bundlePath) is in the index")
            tally.compare(dropIn, reference, cases: folder.cases, file: file)
        }
        tally.report("indexed")
        #expect(tally.mismatches.isEmpty, "see the dropin[indexed] lines above")
        #expect(tally.compared > 10_000, "the corpus must exercise the drop-in (\(tally.compared) comparisons)")
    }

    @Test("without an index, or with one that does not hold the bundle, it is Foundation's Bundle")
    func notIndexedIsFoundation() throws {
        let corpus = try Conformance.corpus.get()
        let files = Array(corpus.genFiles.prefix(6))
        let other = try CorpusFolder(corpus.genFiles.last!)
        let scratch = makeTempDirectory(prefix: "bundleidx-dropin")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        _ = try IndexBuilder.build(roots: [other.root], indexPath: scratch + "/other")
        try FileManager.default.createDirectory(atPath: scratch + "/empty", withIntermediateDirectories: true)
        // Missing, not an index (an empty folder, a file), and an index of another bundle.
        #expect(FileManager.default.createFile(atPath: scratch + "/file", contents: Data("x".utf8)))
        let indexes = [scratch + "/missing/index", scratch + "/empty", scratch + "/file", scratch + "/other"]
        var tally = DropInTally()
        for file in files {
            let folder = try CorpusFolder(file)
            let reference = try #require(Bundle(path: folder.bundlePath))
            for index in indexes {
                let dropIn = try #require(IndexedFoundationBundle(path: folder.bundlePath, index: index),
                                          "init must not fail for want of an index (\(index))")
                #expect(!dropIn.isIndexed)
                tally.compare(dropIn, reference, cases: folder.cases, file: file)
            }
        }
        tally.report("not indexed")
        #expect(tally.mismatches.isEmpty, "see the dropin[not indexed] lines above")
        #expect(tally.compared > 1000, "\(tally.compared) comparisons")
    }

    @Test("nil exactly where Bundle(path:) and Bundle(url:) are nil; the default index never makes init fail")
    func initializers() throws {
        let corpus = try Conformance.corpus.get()
        let folder = try CorpusFolder(try #require(corpus.genFiles.first))
        #expect(IndexedFoundationBundle(path: folder.bundlePath) != nil)
        #expect(IndexedFoundationBundle(url: URL(fileURLWithPath: folder.bundlePath)) != nil)
        let url = try #require(IndexedFoundationBundle(url: URL(fileURLWithPath: folder.bundlePath), index: "/nonexistent"))
        #expect(url.bundlePath == Bundle(path: folder.bundlePath)?.bundlePath)
        for path in ["", "/nonexistent/X.app"] {
            #expect((IndexedFoundationBundle(path: path) == nil) == (Bundle(path: path) == nil), "\(path)")
            #expect((IndexedFoundationBundle(path: path, index: "/nonexistent") == nil) == (Bundle(path: path) == nil), "\(path)")
        }
    }

    @Test("a bundle opened through a symbolic link answers under the link, as Foundation does")
    func throughLink() throws {
        let fixture = try BundleFixture([
            "real/Link.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.link", "CFBundleDevelopmentRegion": "en"]),
            "real/Link.app/a.txt": "", "real/Link.app/en.lproj/b.txt": "", "real/Link.app/Dir.bundle/x": "",
        ], links: ["alias": "real"])
        try fixture.build()
        let path = fixture.root + "/alias/Link.app"
        let dropIn = try #require(IndexedFoundationBundle(path: path, index: fixture.indexPath))
        let reference = try #require(Bundle(path: path))
        #expect(dropIn.isIndexed)
        #expect(dropIn.path(forResource: "a", ofType: "txt") == path + "/a.txt")
        var tally = DropInTally()
        let cases: [[String: Any]] = [
            ["op": "path", "name": "a", "type": "txt"], ["op": "path", "name": "b", "type": "txt", "loc": "en"],
            ["op": "url", "name": "Dir", "type": "bundle"], ["op": "paths", "type": "txt"], ["op": "paths", "type": NSNull()],
        ]
        tally.compare(dropIn, reference, cases: cases.map { ["q": $0] }, file: path)
        tally.report("link")
        #expect(tally.mismatches.isEmpty, "see the dropin[link] lines above")
    }
    @Test("Info.plist values of every kind come out as Foundation's objects")
    func infoPlistKinds() throws {
        let info: [String: Any] = [
            "CFBundleIdentifier": "com.example.kinds", "CFBundleDevelopmentRegion": "en", "CFBundleVersion": "2.1",
            "Date": Date(timeIntervalSince1970: 1_234_567_890), "Data": Data([0, 1, 254, 255]), "Real": 0.1,
            "True": true, "False": false, "Big": Int64.max, "Negative": -7,
            "Nested": ["a": [1, "b", ["c": false]], "empty": [String: Any]()] as [String: Any], "Unicode": "caf\u{E9} \u{1F600}",
        ]
        let fixture = try BundleFixture([
            "Kinds.app/Info.plist": String(decoding: try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0),
                                           as: UTF8.self),
            "Kinds.app/en.lproj/InfoPlist.strings": "\"CFBundleName\" = \"Sorts\";\n\"Real\" = \"text\";\n",
        ])
        try fixture.build()
        let path = fixture.root + "/Kinds.app"
        let dropIn = try #require(IndexedFoundationBundle(path: path, index: fixture.indexPath))
        let reference = try #require(Bundle(path: path))
        #expect(dropIn.isIndexed)
        #expect(dropIn.localizedInfoDictionary != nil)
        var tally = DropInTally()
        tally.compare(dropIn, reference, cases: [], file: path)
        tally.report("kinds")
        #expect(tally.mismatches.isEmpty, "see the dropin[kinds] lines above")
        #expect(dropIn.infoDictionary?["Date"] as? Date == Date(timeIntervalSince1970: 1_234_567_890))
        // On Linux a localized dictionary answers alone, even without the key (L-no-info-fallback).
        #expect(dropIn.object(forInfoDictionaryKey: "Date") == nil)
        #expect(dropIn.object(forInfoDictionaryKey: "CFBundleName") as? String == "Sorts")
        #expect(dropIn.infoDictionary?["Big"] as? Int64 == Int64.max)
    }

    @Test("resource lookups follow the index's current state, where Foundation keeps what it read")
    func followsTheIndex() throws {
        let fixture = try BundleFixture([
            "Fresh.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.fresh", "CFBundleDevelopmentRegion": "en"]),
            "Fresh.app/old.txt": "",
        ])
        try fixture.build()
        let path = fixture.root + "/Fresh.app"
        let dropIn = try #require(IndexedFoundationBundle(path: path, index: fixture.indexPath))
        let reference = try #require(Bundle(path: path))
        #expect(dropIn.path(forResource: "new", ofType: "txt") == nil)
        #expect(dropIn.path(forResource: "old", ofType: "txt") == path + "/old.txt")
        #expect(reference.path(forResource: "old", ofType: "txt") == path + "/old.txt")
        try fixture.add(["Fresh.app/new.txt": ""])
        try fixture.build()
        #expect(dropIn.path(forResource: "new", ofType: "txt") == path + "/new.txt")
        // Foundation on Linux keeps the folder listing it read (docs/search-pattern.md, L-caches).
        #expect(reference.path(forResource: "new", ofType: "txt") == nil)
        #expect(dropIn.paths(forResourcesOfType: "txt", inDirectory: nil).sorted() == [path + "/new.txt", path + "/old.txt"])
    }

    @Test("a bundle opened through a path with .. or . segments: lookups by type and listings drop them, as Foundation's do")
    func dotSegmentsInTheBundlePath() throws {
        let fixture = try BundleFixture([
            "share/A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.dots", "CFBundleDevelopmentRegion": "en"]),
            "share/A.app/a.png": "", "share/A.app/en.lproj/l.png": "", "bin/tool": "",
        ])
        try fixture.build()
        for opened in [fixture.root + "/bin/../share/A.app", fixture.root + "/share/A.app/.", fixture.root + "/share/./A.app"] {
            let dropIn = try #require(IndexedFoundationBundle(path: opened, index: fixture.indexPath))
            let reference = try #require(Bundle(path: opened))
            #expect(dropIn.isIndexed && dropIn.bundlePath == reference.bundlePath)
            // Before: every element of the listing, and the lookup by type, kept the bundle
            // path's segments (review w24, finding 4); by name, Foundation keeps them too.
            #expect(dropIn.paths(forResourcesOfType: "png", inDirectory: nil).sorted()
                    == reference.paths(forResourcesOfType: "png", inDirectory: nil).sorted(), "\(opened)")
            #expect(dropIn.paths(forResourcesOfType: "png", inDirectory: nil, forLocalization: "en").sorted()
                    == reference.paths(forResourcesOfType: "png", inDirectory: nil, forLocalization: "en").sorted(), "\(opened)")
            #expect(dropIn.urls(forResourcesWithExtension: "png", subdirectory: nil)?.compactMap(\.path).sorted()
                    == reference.urls(forResourcesWithExtension: "png", subdirectory: nil)?.compactMap(\.path).sorted(), "\(opened)")
            #expect(dropIn.path(forResource: nil, ofType: "png") == reference.path(forResource: nil, ofType: "png"), "\(opened)")
            #expect(dropIn.path(forResource: "a", ofType: "png") == reference.path(forResource: "a", ofType: "png"), "\(opened)")
            #expect(dropIn.url(forResource: "l", withExtension: "png") == reference.url(forResource: "l", withExtension: "png"), "\(opened)")
            #expect(dropIn.resourcePath == reference.resourcePath, "\(opened)")
        }
        // A bundle with a resource folder: Foundation drops the segments from resourcePath too.
        try fixture.add(["share/Mac.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.mac"]),
                         "share/Mac.app/Contents/Resources/r.png": ""])
        try fixture.build()
        for opened in [fixture.root + "/share/Mac.app/Contents/..", fixture.root + "/bin/../share/Mac.app"] {
            let dropIn = try #require(IndexedFoundationBundle(path: opened, index: fixture.indexPath))
            let reference = try #require(Bundle(path: opened))
            #expect(dropIn.isIndexed)
            #expect(dropIn.resourcePath == reference.resourcePath, "\(opened)")
            #expect(dropIn.resourceURL?.path == reference.resourceURL?.path, "\(opened)")
            #expect(dropIn.paths(forResourcesOfType: "png", inDirectory: nil) == reference.paths(forResourcesOfType: "png", inDirectory: nil), "\(opened)")
        }
    }

    @Test("lproj folders made or removed after the bundle was opened: its lookups and strings follow them")
    func followsNewLprojFolders() throws {
        let fixture = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.a", "CFBundleDevelopmentRegion": "en"]),
            "A.app/x.png": "",
        ])
        try fixture.build()
        let path = fixture.root + "/A.app"
        let dropIn = try #require(IndexedFoundationBundle(path: path, index: fixture.indexPath))
        let indexed = try fixture.bundle("A.app")
        #expect(dropIn.path(forResource: "y", ofType: "png") == nil)
        try fixture.add(["A.app/en.lproj/y.png": "", "A.app/en.lproj/Localizable.strings": "\"hello\" = \"Hi\";",
                         "A.app/de.lproj/y.png": ""])
        try fixture.build()
        // Before: nil, nil and the key, where a Bundle made now answers these (review w24): the
        // lproj folders the bundle had when opened decided which folders a lookup read.
        for lookup in [dropIn.path(forResource: "y", ofType: "png"), try indexed.path(forResource: "y", ofType: "png")] {
            #expect(lookup == path + "/en.lproj/y.png")
        }
        #expect(dropIn.path(forResource: "y", ofType: "png", inDirectory: nil, forLocalization: "de") == path + "/de.lproj/y.png")
        #expect(try indexed.path(forResource: "y", ofType: "png", inDirectory: nil, forLocalization: "de") == path + "/de.lproj/y.png")
        #expect(dropIn.localizedString(forKey: "hello", value: nil, table: nil) == "Hi")
        // Each answer as a Bundle made now gives it.
        let now = try #require(Bundle(path: path))
        #expect(now.path(forResource: "y", ofType: "png") == path + "/en.lproj/y.png")
        #expect(now.path(forResource: "y", ofType: "png", inDirectory: nil, forLocalization: "de") == path + "/de.lproj/y.png")
        // And removed again.
        try FileManager.default.removeItem(atPath: path + "/de.lproj")
        try fixture.build()
        #expect(dropIn.path(forResource: "y", ofType: "png", inDirectory: nil, forLocalization: "de") == nil)
        #expect(dropIn.path(forResource: "y", ofType: "png") == path + "/en.lproj/y.png")
    }
}

/// One corpus folder: the bundle alone in it and the oracle's queries.
private struct CorpusFolder {
    let root: String
    let bundlePath: String
    let cases: [[String: Any]]

    init(_ file: String) throws {
        root = (file as NSString).deletingLastPathComponent
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
        bundlePath = root + "/" + (try #require(doc["bundle"] as? String))
        cases = try #require(doc["cases"] as? [[String: Any]])
    }
}

/// Comparisons of the drop-in with Foundation, and the ones that differ.
struct DropInTally {
    var compared = 0
    var mismatches: [String] = []

    mutating func check(_ agrees: Bool, _ what: @autoclosure () -> String) {
        compared += 1
        if !agrees { mismatches.append(what()) }
    }

    func report(_ suite: String) {
        for m in mismatches.prefix(40) { print("dropin[\(suite)] \(m)") }
        print("dropin[\(suite)]: \(compared - mismatches.count)/\(compared) agree")
    }

    /// Every overridden method, on both bundles, for the file's path/url/paths queries, plus the
    /// Info.plist facts and localizations.
    mutating func compare(_ d: IndexedFoundationBundle, _ f: Bundle, cases: [[String: Any]], file: String) {
        let at = (file as NSString).deletingLastPathComponent
        check(d.bundleIdentifier == f.bundleIdentifier, "\(at) bundleIdentifier \(d.bundleIdentifier ?? "nil")")
        check(d.bundlePath == f.bundlePath && d.bundleURL == f.bundleURL, "\(at) bundlePath \(d.bundlePath) vs \(f.bundlePath)")
        check(d.resourcePath == f.resourcePath, "\(at) resourcePath \(d.resourcePath ?? "nil") vs \(f.resourcePath ?? "nil")")
        check(d.resourceURL == f.resourceURL && d.resourceURL?.hasDirectoryPath == f.resourceURL?.hasDirectoryPath,
              "\(at) resourceURL \(d.resourceURL?.absoluteString ?? "nil") vs \(f.resourceURL?.absoluteString ?? "nil")")
        // In order: the lproj names come in the scan's readdir order, Foundation's for the same folder.
        check(d.localizations == f.localizations, "\(at) localizations \(d.localizations) vs \(f.localizations)")
        check(d.preferredLocalizations == f.preferredLocalizations,
              "\(at) preferredLocalizations \(d.preferredLocalizations) vs \(f.preferredLocalizations)")
        // Foundation traps without a usable CFBundleDevelopmentRegion; the drop-in answers nil.
        if let region = f.infoDictionary?["CFBundleDevelopmentRegion"] as? String, !region.isEmpty {
            check(d.developmentLocalization == f.developmentLocalization, "\(at) developmentLocalization")
        } else {
            check(d.developmentLocalization == nil, "\(at) developmentLocalization without a region")
        }
        check(Self.plistText(d.infoDictionary) == Self.plistText(f.infoDictionary), "\(at) infoDictionary \(Self.plistText(d.infoDictionary)) vs \(Self.plistText(f.infoDictionary))")
        check(Self.plistText(d.localizedInfoDictionary) == Self.plistText(f.localizedInfoDictionary),
              "\(at) localizedInfoDictionary \(Self.plistText(d.localizedInfoDictionary)) vs \(Self.plistText(f.localizedInfoDictionary))")
        let asked = cases.compactMap { ($0["q"] as? [String: Any])?["key"] as? String }
        for key in Set(asked + (f.infoDictionary ?? [:]).keys + (f.localizedInfoDictionary ?? [:]).keys + ["NoSuchKey"]) {
            let (mine, theirs) = (Self.plistText(d.object(forInfoDictionaryKey: key)), Self.plistText(f.object(forInfoDictionaryKey: key)))
            check(mine == theirs, "\(at) object(forInfoDictionaryKey: \(key)) \(mine) vs \(theirs)")
        }
        for c in cases {
            guard let q = c["q"] as? [String: Any] else { continue }
            let (name, type, dir) = (q["name"] as? String, q["type"] as? String, q["dir"] as? String)
            let loc: String?? = q.keys.contains("loc") ? .some(q["loc"] as? String) : .none
            let what = "\(at) \(Conformance.compactJSON(q))"
            switch q["op"] as? String {
            case "path", "url":
                compareSingles(d, f, name, type, dir, loc, what)
            case "paths":
                compareListings(d, f, type, dir, loc, what)
            default:
                continue
            }
        }
    }

    private mutating func compareSingles(_ d: Bundle, _ f: Bundle, _ name: String?, _ type: String?, _ dir: String?,
                                         _ loc: String??, _ what: String) {
        // A type-only lookup answers the first of a readdir-ordered run: any path of that run agrees.
        let run: [String]? = (name ?? "").isEmpty ? Self.listing(f, type, dir, loc) : nil
        func agree(_ a: String?, _ b: String?) -> Bool {
            guard let run, let a, let b else { return a == b }
            return (a as NSString).deletingLastPathComponent == (b as NSString).deletingLastPathComponent && run.contains(a)
        }
        func agree(_ a: URL?, _ b: URL?) -> Bool {
            agree(a?.path, b?.path) && a?.hasDirectoryPath == b?.hasDirectoryPath
        }
        if let loc {
            check(agree(d.path(forResource: name, ofType: type, inDirectory: dir, forLocalization: loc),
                        f.path(forResource: name, ofType: type, inDirectory: dir, forLocalization: loc)), "path(4) " + what)
            check(agree(d.url(forResource: name, withExtension: type, subdirectory: dir, localization: loc),
                        f.url(forResource: name, withExtension: type, subdirectory: dir, localization: loc)), "url(4) " + what)
            return
        }
        check(agree(d.path(forResource: name, ofType: type, inDirectory: dir),
                    f.path(forResource: name, ofType: type, inDirectory: dir)), "path(3) " + what)
        check(agree(d.url(forResource: name, withExtension: type, subdirectory: dir),
                    f.url(forResource: name, withExtension: type, subdirectory: dir)), "url(3) " + what)
        if dir == nil {
            check(agree(d.path(forResource: name, ofType: type), f.path(forResource: name, ofType: type)), "path(2) " + what)
            check(agree(d.url(forResource: name, withExtension: type), f.url(forResource: name, withExtension: type)), "url(2) " + what)
        }
    }

    private mutating func compareListings(_ d: Bundle, _ f: Bundle, _ type: String?, _ dir: String?, _ loc: String??, _ what: String) {
        check(Self.canonicalRuns(Self.listing(d, type, dir, loc)) == Self.canonicalRuns(Self.listing(f, type, dir, loc)), "paths " + what)
        let urls: (Bundle) -> [NSURL]? = { b in
            if let loc { return b.urls(forResourcesWithExtension: type, subdirectory: dir, localization: loc) }
            return b.urls(forResourcesWithExtension: type, subdirectory: dir)
        }
        let described: (Bundle) -> [String]? = { b in
            urls(b).map { list in Self.canonicalRuns(list.map { ($0.path ?? "?") + ($0.hasDirectoryPath ? "/" : "") }) }
        }
        check(described(d) == described(f), "urls " + what)
    }

    /// A property-list object as text that tells its kinds apart (booleans, integers, reals),
    /// whichever Foundation classes carry it.
    private static func plistText(_ value: Any?) -> String {
        guard let value else { return "nil" }
        // The Swift type as well: Foundation hands out `Bool`, `String`, `Date`, `Data`, and a
        // nested dictionary as `[AnyHashable: Any]`; casts such as `as? Int` differ by it.
        return "\(type(of: value))|" + plistValueText(value)
    }

    private static func plistValueText(_ value: Any) -> String {
        if let d = value as? [String: Any] {
            return "{" + d.keys.sorted().map { "\($0)=\(Self.plistText(d[$0]))" }.joined(separator: ",") + "}"
        }
        if let d = value as? NSDictionary {
            return Self.plistText(Dictionary(uniqueKeysWithValues: d.map { ("\($0.key)", $0.value) }))
        }
        if let a = value as? [Any] { return "[" + a.map { Self.plistText($0) }.joined(separator: ",") + "]" }
        if let a = value as? NSArray { return Self.plistText(a.map { $0 }) }
        if let n = value as? NSNumber {
            // The kind, not the C type: NSNumber picks its storage width itself.
            let kind = switch String(cString: n.objCType) { case "c", "B": "bool"; case "f", "d": "real"; default: "int" }
            return "\(kind):\(n)"
        }
        if let s = value as? NSString { return "s:" + String(s).unicodeScalars.map { "\($0.value)" }.joined(separator: ".") }
        if let s = value as? String { return "s:" + s.unicodeScalars.map { "\($0.value)" }.joined(separator: ".") }
        if let t = value as? NSDate { return "d:\(t.timeIntervalSince1970)" }
        if let t = value as? Date { return "d:\(t.timeIntervalSince1970)" }
        if let x = value as? NSData { return "x:" + Data(x).base64EncodedString() }
        if let x = value as? Data { return "x:" + x.base64EncodedString() }
        return "?\(type(of: value))"
    }

    /// `paths(forResourcesOfType:…)`, with or without `forLocalization:`.
    private static func listing(_ b: Bundle, _ type: String?, _ dir: String?, _ loc: String??) -> [String] {
        if let loc { return b.paths(forResourcesOfType: type, inDirectory: dir, forLocalization: loc) }
        return b.paths(forResourcesOfType: type, inDirectory: dir)
    }

    /// Foundation lists one run per folder in search order, each run in readdir order: keep the
    /// runs, sort inside them (as the oracle does).
    private static func canonicalRuns(_ paths: [String]) -> [String] {
        var runs: [[String]] = []
        var folder: String?
        for p in paths {
            let parent = ((p.hasSuffix("/") ? String(p.dropLast()) : p) as NSString).deletingLastPathComponent
            if parent != folder || runs.isEmpty { runs.append([]); folder = parent }
            runs[runs.count - 1].append(p)
        }
        return runs.flatMap { $0.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
    }

    /// Linux answers [first raw localization]; when that comes from lproj names it is readdir
    /// order, so any single lproj-named localization agrees.
}
