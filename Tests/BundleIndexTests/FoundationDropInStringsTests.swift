// IndexedFoundationBundle.localizedString(forKey:value:table:) against Foundation's own Bundle:
// every key of every table (and a missing key, with no, an empty and a given value, under nil,
// empty, absent and every present table name) on Words.app (LocalizedStringTests), the
// conformance corpus and gen-tree trees of both profiles.
import Foundation
import Testing
import BundleIndex
import BundleIndexFoundation

@Suite("Drop-in localizedString against Foundation's Bundle", .enabled(if: Conformance.isLinux))
struct FoundationDropInStringsTests {
    @Test("the drop-in answers as Foundation's Bundle for every key of every table")
    func dropInAgreesOnWords() throws {
        let fixture = try wordsFixture()
        let path = fixture.root + "/Words.app"
        let dropIn = try #require(IndexedFoundationBundle(path: path, index: fixture.indexPath))
        let reference = try #require(Bundle(path: path))
        #expect(dropIn.isIndexed)
        var tally = StringsTally()
        // Both spellings of "é" (a Swift dictionary of the keys would merge them).
        let keys = StringsTally.keys(under: path).union(["\u{E9}", "e\u{301}"]).subtracting(crashingKeys)
        tally.compare(dropIn, reference, tables: wordsTables, keys: keys, at: path)
        tally.report("words")
        #expect(tally.mismatches.isEmpty, "see the strings[words] lines above")
        #expect(tally.compared > 500)
    }

    @Test("strings follow the index's current state, where Foundation keeps the table it read")
    func followsTheIndex() throws {
        let fixture = try wordsFixture()
        let path = fixture.root + "/Words.app"
        let dropIn = try #require(IndexedFoundationBundle(path: path, index: fixture.indexPath))
        let reference = try #require(Bundle(path: path))
        #expect(dropIn.localizedString(forKey: "hello", value: nil, table: nil) == "bonjour")
        #expect(reference.localizedString(forKey: "hello", value: nil, table: nil) == "bonjour")
        try fixture.add(["Words.app/fr.lproj/Localizable.strings": "\"hello\" = \"salut\";\n\"new\" = \"nouveau\";\n"])
        try fixture.build()
        #expect(dropIn.localizedString(forKey: "hello", value: nil, table: nil) == "salut")
        #expect(dropIn.localizedString(forKey: "new", value: nil, table: nil) == "nouveau")
        // NSLocalizedString is Bundle.localizedString(forKey:value:table:): it reaches the index too.
        #expect(NSLocalizedString("hello", bundle: dropIn, comment: "") == "salut")
        #expect(NSLocalizedString("hello", bundle: reference, comment: "") == "bonjour")
        // Foundation on Linux keeps the table it read (docs/search-pattern.md, L-caches).
        #expect(reference.localizedString(forKey: "hello", value: nil, table: nil) == "bonjour")
        #expect(reference.localizedString(forKey: "new", value: nil, table: nil) == "new")
    }

    @Test("without the index, or for a table too large to index, it is Foundation's answer")
    func fallsBackToFoundation() throws {
        let fixture = try wordsFixture()
        let path = fixture.root + "/Words.app"
        // A table over the size limit (made before Foundation first lists the folder, which it
        // then never lists again): its entries are not in the index, Foundation reads it.
        var big = "\"big\" = \"found\";\n"
        big += String(repeating: "/* padding */\n", count: (16 << 20) / 14 + 1)
        try fixture.add(["Words.app/fr.lproj/Big.strings": big])
        try fixture.build()
        let reference = try #require(Bundle(path: path))
        let unindexed = try #require(IndexedFoundationBundle(path: path, index: fixture.root + "/no-index"))
        #expect(!unindexed.isIndexed)
        #expect(unindexed.localizedString(forKey: "hello", value: nil, table: nil) == "bonjour")
        let dropIn = try #require(IndexedFoundationBundle(path: path, index: fixture.indexPath))
        #expect(dropIn.isIndexed)
        #expect(dropIn.localizedString(forKey: "big", value: nil, table: "Big") == "found")
        #expect(dropIn.localizedString(forKey: "other", value: "v", table: "Big") == "v")
        #expect(reference.localizedString(forKey: "big", value: nil, table: "Big") == "found")
        let indexed = try #require(try IndexReader(path: fixture.indexPath).bundle(atPath: path, context: .foundationLinux))
        #expect(throws: BundleIndexError.self) { try indexed.localizedString(forKey: "big", value: nil, table: "Big") }
    }
}

@Suite("Localized strings: the drop-in against Foundation over generated trees", .tags(.slow),
       .enabled(if: TestPlan.runsSlowSuites, "quick run (tools/test.sh --quick)"),
       .enabled(if: Conformance.isLinux, "compares with Foundation-on-Linux's Bundle"))
struct FoundationDropInStringsCorpusTests {
    @Test("every key of every table of every conformance corpus bundle (UTF-8, UTF-16 and binary InfoPlist tables)")
    func conformanceCorpus() throws {
        let corpus = try Conformance.corpus.get()
        var tally = StringsTally()
        try Self.compareCorpus(corpus.genFiles + corpus.devOnlyFiles + corpus.scenarioFiles, into: &tally) { _ in .foundationLinux }
        tally.report("corpus")
        #expect(tally.mismatches.isEmpty, "see the strings[corpus] lines above")
        #expect(tally.compared > 3000, "\(tally.compared) comparisons")
    }

    @Test("the apple profile answers as Foundation where both search the same folders (one lproj, the development region's)")
    func appleProfileOnDevOnlyBundles() throws {
        let corpus = try Conformance.corpus.get()
        var tally = StringsTally()
        try Self.compareCorpus(corpus.devOnlyFiles, into: &tally) { doc in
            .apple(languages: [doc["developmentRegion"] as? String ?? "en"], platform: .linux)
        }
        tally.report("apple/devonly")
        #expect(tally.mismatches.isEmpty, "see the strings[apple/devonly] lines above")
        #expect(tally.compared > 1000, "\(tally.compared) comparisons")
    }

    /// Each corpus bundle (of its expected.json `file`) indexed alone, then the drop-in under
    /// `context(expected.json)` against Foundation's Bundle, every key of every table.
    static func compareCorpus(_ files: [String], into tally: inout StringsTally,
                              context: ([String: Any]) -> SearchContext) throws {
        for file in files {
            let root = (file as NSString).deletingLastPathComponent
            let doc = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
            guard let name = doc["bundle"] as? String else { continue }
            let scratch = makeTempDirectory(prefix: "bundleidx-strings")
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            _ = try IndexBuilder.build(roots: [root], indexPath: scratch + "/index")
            let path = root + "/" + name
            guard let reference = Bundle(path: path),
                  let dropIn = IndexedFoundationBundle(path: path, index: scratch + "/index", context: context(doc)) else { continue }
            #expect(dropIn.isIndexed, "\(path)")
            let (tables, keys) = StringsTally.tablesAndKeys(under: path)
            tally.compare(dropIn, reference, tables: [nil, "", "Nope"] + tables.sorted(), keys: keys, at: path)
        }
    }

    @Test("every key of every table of every bundle of a real corpus (tools/real-corpus DIR, then BUNDLEIDX_REAL_CORPUS=DIR)",
          .enabled(if: ProcessInfo.processInfo.environment["BUNDLEIDX_REAL_CORPUS"] != nil, "no real corpus named"))
    func realCorpus() throws {
        let corpus = try #require(ProcessInfo.processInfo.environment["BUNDLEIDX_REAL_CORPUS"])
        let scratch = makeTempDirectory(prefix: "bundleidx-strings-real")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        _ = try IndexBuilder.build(roots: [corpus], indexPath: scratch + "/index")
        var tally = StringsTally()
        var bundles = 0
        for bundle in try IndexReader(path: scratch + "/index").bundles(under: corpus) {
            guard let reference = Bundle(path: bundle.bundlePath),
                  let dropIn = IndexedFoundationBundle(path: bundle.bundlePath, index: scratch + "/index") else { continue }
            #expect(dropIn.isIndexed, "\(bundle.bundlePath)")
            let (tables, keys) = StringsTally.tablesAndKeys(under: bundle.bundlePath)
            tally.compare(dropIn, reference, tables: [nil, "", "Nope"] + tables.sorted(), keys: keys, at: bundle.bundlePath)
            bundles += 1
        }
        tally.report("real corpus, \(bundles) bundles")
        #expect(tally.mismatches.isEmpty, "see the strings[real corpus] lines above")
    }

    @Test("every key of every table of every bundle of a gen-tree tree, both profiles")
    func genTree() throws {
        let scratch = makeTempDirectory(prefix: "bundleidx-strings-gen")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var tally = StringsTally()
        for (profile, resources) in [("default", "6000"), ("real", "3000")] {
            let tree = scratch + "/" + profile
            // --jobs 1: no worker processes under the test runner (see BusyWatcherTests).
            let generated = try run(["python3", packageRoot + "/tools/gen-tree", "--out", tree, "--profile", profile,
                                     "--resources", resources, "--seed", "13", "--jobs", "1"])
            #expect(generated.status == 0, "\(generated.stderr)")
            _ = try IndexBuilder.build(roots: [tree], indexPath: tree + "-index")
            let bundles = try IndexReader(path: tree + "-index").bundles(under: tree)
            #expect(bundles.count > 3, "\(profile): \(bundles.count) bundles")
            for bundle in bundles {
                guard let reference = Bundle(path: bundle.bundlePath),
                      let dropIn = IndexedFoundationBundle(path: bundle.bundlePath, index: tree + "-index") else { continue }
                #expect(dropIn.isIndexed, "\(bundle.bundlePath)")
                let (tables, keys) = StringsTally.tablesAndKeys(under: bundle.bundlePath)
                tally.compare(dropIn, reference, tables: [nil, "", "Nope"] + tables.sorted(), keys: keys, at: bundle.bundlePath)
            }
        }
        tally.report("gen-tree")
        #expect(tally.mismatches.isEmpty, "see the strings[gen-tree] lines above")
        #expect(tally.compared > 4000, "\(tally.compared) comparisons")
    }
}

/// Comparisons of the drop-in's `localizedString` with Foundation's, and the ones that differ.
struct StringsTally {
    var compared = 0
    var mismatches: [String] = []

    /// Each key of `keys` and a missing one, in each table, with no, an empty and a given value.
    mutating func compare(_ d: IndexedFoundationBundle, _ f: Bundle, tables: [String?], keys: Set<String>, at: String) {
        for table in tables {
            for key in keys.union(["no such key"]).sorted() {
                for value in [nil, "", "fallback"] as [String?] {
                    let (mine, theirs) = (d.localizedString(forKey: key, value: value, table: table),
                                          f.localizedString(forKey: key, value: value, table: table))
                    compared += 1
                    if mine != theirs {
                        mismatches.append("\(at) table \(table ?? "nil") key \(key.debugDescription) value \(value ?? "nil"): "
                                          + "\(mine.debugDescription) vs \(theirs.debugDescription)")
                    }
                }
            }
        }
    }

    func report(_ suite: String) {
        for m in mismatches.prefix(40) { print("strings[\(suite)] \(m)") }
        print("strings[\(suite)]: \(compared - mismatches.count)/\(compared) agree")
    }

    /// Every table file under `bundle` (by name without extension and platform suffix) and every
    /// key of them whose value is a string everywhere it occurs.
    static func tablesAndKeys(under bundle: String) -> (tables: Set<String>, keys: Set<String>) {
        var tables: Set<String> = [], keys: Set<String> = [], unsafe: Set<String> = []
        let files = FileManager.default.enumerator(atPath: bundle)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".strings") || file.hasSuffix(".stringsdict") {
            let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
            tables.insert(name)
            if let dash = name.firstIndex(of: "-") { tables.insert(String(name[..<dash])) }
            guard let data = FileManager.default.contents(atPath: bundle + "/" + file),
                  let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any]
            else { continue }
            for (k, v) in plist { if v is String { keys.insert(k) } else { unsafe.insert(k) } }
        }
        return (tables, keys.subtracting(unsafe))
    }

    static func keys(under bundle: String) -> Set<String> { tablesAndKeys(under: bundle).keys }
}
