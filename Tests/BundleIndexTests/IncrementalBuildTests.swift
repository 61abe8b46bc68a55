// Building again over an existing index reads only what changed, and ends with the same index a
// fresh full build writes (docs/scanning.md, "Incremental builds").
import Foundation
import Glibc
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Incremental build", .serialized)
struct IncrementalBuildTests {
    static let tree = [
        // flat
        "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "a", "CFBundleDevelopmentRegion": "en"]),
        "A.app/icon.png": "png", "A.app/en.lproj/Localizable.strings": "\"hi\" = \"Hello\";",
        "A.app/en.lproj/InfoPlist.strings": "\"CFBundleName\" = \"A\";", "A.app/fr.lproj/Localizable.strings": "\"hi\" = \"Salut\";",
        // framework with versions, a Resources link and a nested bundle in its resources
        "B.framework/Versions/A/Resources/Info.plist": infoPlist(["CFBundleIdentifier": "b"]),
        "B.framework/Versions/A/Resources/en.lproj/Errors.strings": "\"e\" = \"Error\";",
        "B.framework/Versions/A/Resources/C.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "c"]),
        "B.framework/Versions/A/Resources/C.bundle/en.lproj/C.strings": "\"c\" = \"See\";",
        // contents layout with a framework outside its resource tree
        "D.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "d", "CFBundleVersion": "1"]),
        "D.app/Contents/MacOS/D": "binary", "D.app/Contents/Resources/en.lproj/Localizable.strings": "\"d\" = \"Dee\";",
        "D.app/Contents/Resources/Images/bg.png": "",
        "D.app/Contents/Frameworks/E.framework/Resources/Info.plist": infoPlist(["CFBundleIdentifier": "e"]),
    ]
    static let links = ["B.framework/Versions/Current": "A", "B.framework/Resources": "Versions/Current/Resources"]

    /// The fixture tree, settled after each change: stamps from the clock tick of a scan are
    /// not trusted, so without that every bundle would be read again.
    final class Tree {
        let fixture: BundleFixture
        var root: String { fixture.root }

        init(_ files: [String: String] = IncrementalBuildTests.tree, links: [String: String] = IncrementalBuildTests.links) throws {
            fixture = try BundleFixture(files, links: links)
            settle()
        }

        /// Waits until the changes made so far are old enough for a build to trust their stamps.
        func settle() { waitUntilSettled() }

        func rewrite(_ relative: String, _ content: String) throws {
            // In place: the same inode, so the folder's time does not change.
            let handle = try #require(FileHandle(forUpdatingAtPath: root + "/" + relative))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(content.utf8))
            try handle.close()
        }

        func move(_ from: String, _ to: String) throws {
            try FileManager.default.moveItem(atPath: root + "/" + from, toPath: root + "/" + to)
        }

        func remove(_ relative: String) throws { try FileManager.default.removeItem(atPath: root + "/" + relative) }
    }

    /// Everything the index holds for its bundles, with bundle ids and scan times left out
    /// (a fresh index numbers its bundles anew): every bundle record's fields, every resource
    /// and strings record (key without the bundle id, value), every identifier entry, the roots.
    static func content(_ indexPath: String) throws -> [String] {
        let store = try IndexStore.openForReading(path: indexPath)
        return try store.read { snap in
            var out = ["roots \(try snap.roots())"]
            func hex(_ bytes: some Collection<UInt8>) -> String { bytes.map { String($0, radix: 16) }.joined(separator: ".") }
            for b in try snap.bundles(under: "/") {
                // The record as stored (layout, Info.plist files, lprojs, warnings, root, stamps).
                let canonical = BundleRecord(id: 0, path: b.path, layout: b.layout, infoPlists: b.infoPlists, lprojs: b.lprojs,
                                             warnings: b.warnings, root: b.root, scannedAt: 0, stamps: b.stamps,
                                             directoryMarks: b.directoryMarks)
                out.append("bundle \(b.path) \(hex(canonical.encode()))")
                try snap.forEachResourceRecord(bundle: b.id) { key, value in
                    out.append("resource \(b.path) \(hex(key.dropFirst(4))) \(hex(value))")
                    return true
                }
                try snap.forEachStringsRecord(bundle: b.id) { key, value in
                    out.append("strings \(b.path) \(hex(key.dropFirst(4))) \(hex(value))")
                    return true
                }
            }
            try snap.forEachIdentifier { out.append("identifier \($0) \($1)") }
            return out
        }
    }

    /// Bundles read, unchanged and removed.
    static func counts(_ s: IndexBuilder.Summary) -> [Int] { [s.bundlesRead, s.bundlesUnchanged, s.bundlesRemoved] }

    /// The test tree with `files` added, built in full (`bundles` read) and settled.
    static func builtTree(adding files: [String: String], bundles: Int) throws -> Tree {
        let t = try Tree(tree.merging(files) { mine, _ in mine })
        #expect(counts(try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath)) == [bundles, 0, 0])
        t.settle()
        return t
    }

    /// What an incremental build would keep of each of `bundles` (relative to the tree's root),
    /// as the index holds them now.
    static func reuse(_ bundles: [String], in t: Tree) throws -> [UnchangedBundles.Reuse?] {
        try IndexStore.openForReading(path: t.fixture.indexPath).read { snapshot in
            let unchanged = UnchangedBundles(snapshot: snapshot, root: t.root)
            return bundles.map { unchanged.reuse(t.root + "/" + $0) }
        }
    }

    /// Settles the tree's new times, builds incrementally, then checks the result against a fresh full build of the same tree
    /// in another index, record by record, and against `verify`.
    @discardableResult
    static func buildAndCompare(_ tree: Tree, read: Int, unchanged: Int, removed: Int = 0,
                                sourceLocation: SourceLocation = #_sourceLocation) throws -> IndexBuilder.Summary {
        tree.settle()
        let summary = try IndexBuilder.build(roots: [tree.root], indexPath: tree.fixture.indexPath)
        #expect(counts(summary) == [read, unchanged, removed], "read, unchanged, removed", sourceLocation: sourceLocation)
        let fresh = makeTempDirectory(prefix: "incremental-fresh")
        defer { try? FileManager.default.removeItem(atPath: fresh) }
        let full = try IndexBuilder.build(roots: [tree.root], indexPath: fresh + "/index")
        #expect(summary.bundles == full.bundles, sourceLocation: sourceLocation)
        #expect(summary.resources == full.resources, sourceLocation: sourceLocation)
        let incremental = try content(tree.fixture.indexPath), expected = try content(fresh + "/index")
        #expect(incremental.count == expected.count, sourceLocation: sourceLocation)
        for (a, b) in zip(incremental, expected) where a != b {
            Issue.record("incremental: \(a)\nfull:        \(b)", sourceLocation: sourceLocation)
            break
        }
        #expect(try IndexVerifier.verify(indexPath: tree.fixture.indexPath).isEmpty, sourceLocation: sourceLocation)
        return summary
    }

    @Test("a build over an unchanged tree reads nothing again and keeps the index as a full build writes it")
    func unchangedTree() throws {
        let t = try Tree()
        let first = try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath)
        #expect(Self.counts(first) == [5, 0, 0])
        try Self.buildAndCompare(t, read: 0, unchanged: 5)
        let full = try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath, full: true)
        #expect(Self.counts(full) == [5, 0, 0], "--full reads every bundle")
    }

    @Test("files rewritten in place: a strings table, an Info.plist and an InfoPlist.strings are read again, other files need nothing")
    func filesRewrittenInPlace() throws {
        let t = try Tree()
        _ = try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath)
        try t.rewrite("A.app/en.lproj/Localizable.strings", "\"hi\" = \"Hello again\";")
        try Self.buildAndCompare(t, read: 1, unchanged: 4)
        try t.rewrite("A.app/icon.png", "another picture")
        try Self.buildAndCompare(t, read: 0, unchanged: 5)
        try t.rewrite("D.app/Contents/Info.plist", infoPlist(["CFBundleIdentifier": "d2", "CFBundleVersion": "2"]))
        try Self.buildAndCompare(t, read: 1, unchanged: 4)
        try t.rewrite("A.app/en.lproj/InfoPlist.strings", "\"CFBundleName\" = \"Ay\";")
        try Self.buildAndCompare(t, read: 1, unchanged: 4)
        // C.bundle's table is also a table of B.framework, whose resources hold C.bundle.
        try t.rewrite("B.framework/Versions/A/Resources/C.bundle/en.lproj/C.strings", "\"c\" = \"Sea\";")
        try Self.buildAndCompare(t, read: 2, unchanged: 3)
    }

    @Test("files and lproj folders added, removed and renamed are read again")
    func filesAndFolders() throws {
        let t = try Tree()
        _ = try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath)
        try t.fixture.add(["A.app/new.png": ""])
        try Self.buildAndCompare(t, read: 1, unchanged: 4)
        try t.remove("A.app/fr.lproj")
        try Self.buildAndCompare(t, read: 1, unchanged: 4)
        try t.move("A.app/en.lproj", "A.app/de.lproj")
        try Self.buildAndCompare(t, read: 1, unchanged: 4)
        try t.fixture.add(["D.app/Contents/Resources/Images/deep/er/x.png": ""])
        try Self.buildAndCompare(t, read: 1, unchanged: 4)
        try t.move("D.app/Contents/Resources/Images/deep/er/x.png", "D.app/Contents/Resources/Images/deep/er/y.png")
        try Self.buildAndCompare(t, read: 1, unchanged: 4)
        try t.fixture.add(["B.framework/Versions/A/Resources/fr.lproj/Errors.strings": "\"e\" = \"Erreur\";"])
        try Self.buildAndCompare(t, read: 1, unchanged: 4)
    }

    @Test("an Info.plist added next to the one read, outside the resource tree, is seen; so is a change of layout")
    func infoPlistAddedOutsideTheResourceTree() throws {
        let t = try Tree()
        _ = try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath)
        try t.fixture.add(["D.app/Contents/Info-gnustep.plist": infoPlist(["CFBundleIdentifier": "d-gnustep"])])
        try Self.buildAndCompare(t, read: 1, unchanged: 4)
        // A `Resources` folder at the root of a contents bundle does not change its layout…
        try t.fixture.add(["D.app/Resources/": ""])
        try Self.buildAndCompare(t, read: 1, unchanged: 4)
        // …but renaming `Contents` does (and moves E.framework).
        try t.move("D.app/Contents", "D.app/Old")
        try Self.buildAndCompare(t, read: 2, unchanged: 3, removed: 1)
    }

    @Test("nested bundles added, removed and renamed; bundles removed and renamed")
    func bundles() throws {
        let t = try Tree()
        _ = try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath)
        try t.fixture.add(["D.app/Contents/Resources/Plug.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "plug"])])
        try Self.buildAndCompare(t, read: 2, unchanged: 4)
        // Frameworks/ lies outside D.app's resource tree: D.app's records do not change.
        try t.remove("D.app/Contents/Frameworks/E.framework")
        try Self.buildAndCompare(t, read: 0, unchanged: 5, removed: 1)
        try t.move("B.framework/Versions/A/Resources/C.bundle", "B.framework/Versions/A/Resources/C2.bundle")
        try Self.buildAndCompare(t, read: 2, unchanged: 3, removed: 1)
        try t.move("A.app", "Z.app")
        try Self.buildAndCompare(t, read: 1, unchanged: 4, removed: 1)
        try t.remove("Z.app")
        try Self.buildAndCompare(t, read: 0, unchanged: 4, removed: 1)
    }

    @Test("among more bundles than are checked ahead of the walk, each change is read again and the rest kept")
    func moreBundlesThanTheCheckWindow() throws {
        let many = UnchangedBundlesAheadTests.manyBundles(2 * UnchangedBundlesAhead.window + 20)
        let t = try Tree(Self.tree.merging(many) { mine, _ in mine })
        #expect(Self.counts(try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath)) == [155, 0, 0])
        // A strings table rewritten in place, reached through the framework's `Resources` link.
        try t.rewrite("B.framework/Resources/en.lproj/Errors.strings", "\"e\" = \"Fault\";")
        try Self.buildAndCompare(t, read: 1, unchanged: 154)
        // Far apart in the walk: a table rewritten, an lproj added, a bundle removed.
        try t.rewrite("x.y/B7.bundle/de.lproj/Localizable.strings", "\"k\" = \"sieben\";")
        try t.fixture.add(["x y/B93.bundle/fr.lproj/Localizable.strings": "\"k\" = \"quatre-vingt-treize\";"])
        try t.remove("x/y/B144.bundle")
        try Self.buildAndCompare(t, read: 2, unchanged: 152, removed: 1)
    }

    @Test("a folder that is a bundle only by its Info.plist stops being one when that goes; the walk takes an unchanged one for a bundle without asking")
    func bundleByItsInfoPlistAlone() throws {
        let tool = ["Tool/Resources/Info-gnustep.plist": "{ NSExecutable = Tool; }", "Tool/Resources/en.lproj/Tool.strings": "\"t\" = \"T\";"]
        let t = try Tree(Self.tree.merging(tool) { mine, _ in mine })
        #expect(Self.counts(try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath)) == [6, 0, 0])
        try Self.buildAndCompare(t, read: 0, unchanged: 6)
        try t.remove("Tool/Resources/Info-gnustep.plist")
        try Self.buildAndCompare(t, read: 0, unchanged: 5, removed: 1)
        try t.fixture.add(["Tool/Resources/Info.plist": infoPlist(["CFBundleIdentifier": "tool"])])
        try Self.buildAndCompare(t, read: 1, unchanged: 5)
    }

    @Test("a record without a stamp of its bundle root (an index from before root stamps) is read again")
    func recordWithoutRootStamp() throws {
        let t = try Tree()
        _ = try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath)
        let store = try IndexStore.openForWriting(path: t.fixture.indexPath)
        try store.write { writer in
            let d = try #require(try writer.bundleRecord(path: t.root + "/D.app"))
            #expect(d.stamps.contains { $0.path.isEmpty } && d.stamps.contains { $0.path == "Contents" })
            let old = BundleRecord(id: d.id, path: d.path, layout: d.layout, infoPlists: d.infoPlists, lprojs: d.lprojs,
                                   warnings: d.warnings, root: d.root, scannedAt: d.scannedAt,
                                   stamps: d.stamps.filter { $0.path != "" && $0.path != "Contents" },
                                   directoryMarks: d.directoryMarks)
            try writer.txn.put(store.bundles, key: Array(d.path.utf8), value: old.encode())
        }
        try Self.buildAndCompare(t, read: 1, unchanged: 4)
    }

    @Test("a change in the second of the last scan is not missed, even when the file keeps its time")
    func changeWithinTheScanSecond() throws {
        let f = try BundleFixture(["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "a"]),
                                   "A.app/en.lproj/Localizable.strings": "\"hi\" = \"Hello\";"])
        try f.build()
        // The same size and the same time afterwards: only the content tells.
        let path = f.root + "/A.app/en.lproj/Localizable.strings"
        var st = stat()
        #expect(stat(path, &st) == 0)
        try Data("\"hi\" = \"Howdy\";".utf8).write(to: URL(fileURLWithPath: path))
        var times = [st.st_atim, st.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let summary = try f.build()
        #expect(summary.bundlesRead == 1)
        let bundle = try f.bundle("A.app")
        #expect(try bundle.localizedString(forKey: "hi", value: nil, table: nil) == "Howdy")
    }

    @Test("progress counts bundles and resources as the summary does, read or unchanged")
    func progressAgreesWithTheSummary() throws {
        let t = try Tree()
        for full in [true, false, true] {
            var last = [0, 0], calls = 0
            let summary = try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath, full: full) { b, r in
                last = [b, r]
                calls += 1
            }
            #expect(calls == summary.bundles)
            #expect(last == [summary.bundles, summary.resources], "full: \(full)")
            #expect(summary.bundles == 5)
            // A nested bundle's entries count for it and for the bundle around it.
            let store = try IndexStore.openForReading(path: t.fixture.indexPath)
            let entries = try store.read { snap in
                try snap.bundles(under: "/").reduce(0) { n, b in try n + snap.directoryRecords(bundle: b.id).reduce(0) { $0 + $1.entries.count } }
            }
            #expect(summary.resources == entries)
        }
    }

    @Test("the walk passes over an unchanged bundle's folders that hold no bundle, but still finds a changed bundle nested deep in it")
    func nestedDeepInAnUnchangedBundle() throws {
        let deep = ["D.app/Contents/Resources/Images/Deep/Plug.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "plug"]),
                    "D.app/Contents/Resources/Images/Deep/Plug.bundle/en.lproj/P.strings": "\"p\" = \"Pea\";",
                    "D.app/Contents/Resources/Images/Other/x.png": "png"]
        let t = try Self.builtTree(adding: deep, bundles: 6)
        // What the walk is given for D (its records start at Contents/Resources and hold Plug's
        // folders too): the folders on the way to Plug and Plug itself; not Other nor the lprojs.
        let resources = t.root + "/D.app/Contents/Resources"
        let reuse = try #require(try Self.reuse(["D.app"], in: t)[0])
        #expect(reuse.listings.keys.sorted() == ["", "/Images", "/Images/Deep", "/Images/Deep/Plug.bundle"].map { resources + $0 })
        #expect(reuse.skipped.sorted() == ["/Images/Deep/Plug.bundle/en.lproj", "/Images/Other", "/en.lproj"].map { resources + $0 })
        // Plug's table is D's too (a bundle in D's resources): both read again, the walk went
        // through Images/Deep although D was checked first.
        try t.rewrite("D.app/Contents/Resources/Images/Deep/Plug.bundle/en.lproj/P.strings", "\"p\" = \"Pod\";")
        try Self.buildAndCompare(t, read: 2, unchanged: 4)
        // A file rewritten inside Plug that is no table: nothing is read again, Plug is kept.
        try t.fixture.add(["D.app/Contents/Resources/Images/Deep/Plug.bundle/en.lproj/p.png": "png"])
        try Self.buildAndCompare(t, read: 2, unchanged: 4)
        try t.rewrite("D.app/Contents/Resources/Images/Deep/Plug.bundle/en.lproj/p.png", "another png")
        try Self.buildAndCompare(t, read: 0, unchanged: 6)
    }

    @Test("a GNUstep application's Resources, flat with its Info-gnustep.plist, is passed over; bundles that appear in it are found")
    func gnustepResourcesPassedOver() throws {
        let gnustep = ["G.app/G": "binary", "G.app/Resources/Info-gnustep.plist": "{ CFBundleIdentifier = g; }",
                       "G.app/Resources/English.lproj/Localizable.strings": "\"g\" = \"Gee\";", "G.app/Resources/g.tiff": "tiff",
                       "H.app/H": "binary", "H.app/Resources/Info-gnustep.plist": "{ CFBundleIdentifier = h; }",
                       "H.app/Resources/Plug.bundle/Resources/Info-gnustep.plist": "{ CFBundleIdentifier = plug; }"]
        let t = try Self.builtTree(adding: gnustep, bundles: 8)
        let reuses = try Self.reuse(["G.app", "H.app"], in: t)
        // G's Resources cannot be a bundle (CF takes a flat `Resources` for another's innards) and
        // holds none: only the root is entered.
        let g = try #require(reuses[0])
        #expect(g.listings.keys.sorted() == [t.root + "/G.app"])
        #expect(g.skipped == [t.root + "/G.app/Resources"])
        // H's holds a bundle: the walk goes through it to Plug.
        let h = try #require(reuses[1])
        #expect(h.listings.keys.sorted() == ["", "/Resources", "/Resources/Plug.bundle"].map { t.root + "/H.app" + $0 })
        try Self.buildAndCompare(t, read: 0, unchanged: 8)
        // A bundle added in G's Resources changes its listing: G is read again and the new one found.
        try t.fixture.add(["G.app/Resources/New.bundle/Resources/Info-gnustep.plist": "{ CFBundleIdentifier = new; }"])
        try Self.buildAndCompare(t, read: 2, unchanged: 7)
        // Plug's Info-gnustep.plist rewritten in place: Plug is read again; H's stamps hold no
        // other bundle's Info.plist, so H is kept.
        try t.rewrite("H.app/Resources/Plug.bundle/Resources/Info-gnustep.plist", "{ CFBundleIdentifier = plug2; }")
        try Self.buildAndCompare(t, read: 1, unchanged: 8)
    }

    @Test("a folder named with --bundle inside an unchanged bundle's quiet folders is found")
    func declaredInsideAnUnchangedBundle() throws {
        let t = try Tree()
        _ = try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath)
        t.settle()
        let images = t.root + "/D.app/Contents/Resources/Images"
        let summary = try IndexBuilder.build(roots: [t.root], bundles: [images], indexPath: t.fixture.indexPath)
        #expect(Self.counts(summary) == [1, 5, 0])
        let fresh = makeTempDirectory(prefix: "incremental-fresh")
        defer { try? FileManager.default.removeItem(atPath: fresh) }
        _ = try IndexBuilder.build(roots: [t.root], bundles: [images], indexPath: fresh + "/index")
        #expect(try Self.content(t.fixture.indexPath) == Self.content(fresh + "/index"))
    }
}

/// The incremental build passes over folders that `TreeWalker.nameMayBeBundle` and
/// `UnchangedWalkPlan.leadsOn` rule out: they must never rule out a folder `isBundle` takes.
@Suite("Folders the incremental walk passes over")
struct QuietFolderTests {
    @Test("every folder isBundle takes (but for --bundle) is one the quiet tests let through, over random listings")
    func neverRulesOutABundle() throws {
        let root = makeTempDirectory(prefix: "quiet-folders")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let names = ["Info.plist", "info.PLIST", "Info-gnustep.plist", "INFO-MACOS.plist", "Info-iphoneos.plist", "Contents",
                     "resources", "Resources", "Support Files", "SUPPORT FILES", "Current", "Versions", "a.png", "b.strings",
                     "x.lproj", "Info.plist.bak", "Informatio", "contentsX", "icon"]
        // Folders whose names CF takes for another bundle's innards too (`leadsOn`).
        let folders = ["X", "X.app", "X.APP", "Y.bundle", "Z.resources", "Libraries/gui/Versions/1", "Versions/A", "plain.d", "n.framework",
                       "G.app/Resources", "M.app/Contents", "S/Support Files", "MyResources", "R.framework/Resources", "resources"]
        let kinds: [DirectoryEntry.Flags] = [[], [.directory], [.symlink], [.symlink, .symlinkToDirectory]]
        var random = SeededRandom(state: 7)
        let walker = TreeWalker()
        var bundles = 0
        for round in 0..<3_000 {
            let path = root + "/" + folders[random.below(folders.count)]
            let entries = (0..<random.below(4)).map { _ in
                DirectoryEntry(name: names[random.below(names.count)], flags: kinds[random.below(kinds.count)])
            }
            // The Info.plist folder's listing, when the layout looks in one, as the walk lends it.
            let inner = (0..<random.below(3)).map { _ in DirectoryEntry(name: names[random.below(names.count)], flags: []) }
            let listings = ["Contents", "Resources", "Support Files"].reduce(into: PathMap<DirectoryListing>()) {
                $0[path + "/" + $1] = DirectoryListing(entries: inner, changeTime: 0)
            }
            var skipped = 0
            guard try walker.isBundle(path, entries: entries, skippedNames: &skipped, listings: listings) else { continue }
            bundles += 1
            let letThrough = TreeWalker.nameMayBeBundle(path) || UnchangedWalkPlan.leadsOn(entries, path: path)
            #expect(letThrough, "round \(round): \(path) \(entries.map { ($0.name, $0.flags.rawValue) })")
        }
        #expect(bundles > 300)
        // The innards rule passes over something: a GNUstep application's Resources.
        let gnustep = [DirectoryEntry(name: "Info-gnustep.plist", flags: []), DirectoryEntry(name: "English.lproj", flags: .directory)]
        #expect(!UnchangedWalkPlan.leadsOn(gnustep, path: root + "/G.app/Resources"))
        #expect(UnchangedWalkPlan.leadsOn(gnustep, path: root + "/G.app/Other"))
    }
}
