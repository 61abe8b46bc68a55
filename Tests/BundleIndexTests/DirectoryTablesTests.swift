// A directory read a second time in a transaction is answered from a table in memory
// (Query/DirectoryTables.swift): the same answers as the index gives, never an answer from
// before a commit, and no index read once the table is kept.
import Foundation
import Testing
@testable import BundleIndex
@_spi(Engine) @testable import BundleIndexCore

@Suite("Directory tables")
struct DirectoryTablesTests {
    static let files = [
        "A.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "a", "CFBundleDevelopmentRegion": "en"]),
        "A.bundle/icon.png": "", "A.bundle/Icon.png": "", "A.bundle/readme": "", "A.bundle/a.b.c": "",
        "A.bundle/caf\u{E9}.txt": "", "A.bundle/Sub/s.txt": "", "A.bundle/Sub/Deeper/d.txt": "",
        "A.bundle/en.lproj/only-en.txt": "", "A.bundle/en.lproj/icon.png": "", "A.bundle/fr.lproj/only-fr.txt": "",
        "A.bundle/Base.lproj/base.txt": "", "A.bundle/en.lproj/Sub/s.txt": "",
        // A folder with variant names: always read from the index.
        "A.bundle/Var/logo.png": "", "A.bundle/Var/logo-linux.png": "", "A.bundle/Var/logo~ipad.png": "",
    ]

    static let queries: [(String, String?, String?)] = [
        ("icon", "png", nil), ("Icon", "png", nil), ("ICON", "png", nil), ("icon.png", nil, nil), ("readme", nil, nil),
        ("a.b", "c", nil), ("a", "b.c", nil), ("caf\u{E9}", "txt", nil), ("cafe\u{301}", "txt", nil), ("only-en", "txt", nil),
        ("only-fr", "txt", nil), ("base", "txt", nil), ("s", "txt", "Sub"), ("d", "txt", "Sub/Deeper"), ("nothing", "txt", nil),
        ("nothing", "txt", "Sub"), ("logo", "png", "Var"), ("logo.png", nil, "Var"), ("x", "y", "Nope"), ("Sub", nil, nil),
        ("en", "lproj", nil),
    ]

    /// Every query asked through the index read route three times (noted, table built, table
    /// used), each answer equal to the general lookup's, both profiles and with and without
    /// `forLocalization:`.
    @Test("a directory's table answers as the index does, on every ask")
    func sameAnswers() throws {
        let f = try BundleFixture(Self.files)
        for context in [SearchContext.foundationLinux, .apple(languages: ["fr", "en"], platform: .ios, device: .ipad)] {
            let bundle = try f.bundle("A.bundle", context: context)
            for round in 0..<3 {
                for (name, type, dir) in Self.queries {
                    let general = try bundle.hit(name, type, dir, .unspecified).map(bundle.absolute)
                    #expect(try bundle.pathReadingIndex(forResource: name, ofType: type, inDirectory: dir) == general,
                            "round \(round) \(String(describing: (name, type, dir)))")
                    for l in [nil, "en", "fr", "de"] as [String?] {
                        let generalLocalized = try bundle.hit(name, type, dir, .given(l)).map(bundle.absolute)
                        #expect(try bundle.pathReadingIndex(forResource: name, ofType: type, inDirectory: dir, forLocalization: l)
                                == generalLocalized, "round \(round) \(String(describing: (name, type, dir, l)))")
                    }
                }
            }
            // Every table is kept now, and no answer: the public calls answer from the tables
            // alone (`DirectorySource.kept`, no read transaction), as the index does.
            for (name, type, dir) in Self.queries {
                #expect(try bundle.path(forResource: name, ofType: type, inDirectory: dir)
                        == bundle.hit(name, type, dir, .unspecified).map(bundle.absolute), "kept \(String(describing: (name, type, dir)))")
                for l in [nil, "en", "fr", "de"] as [String?] {
                    #expect(try bundle.path(forResource: name, ofType: type, inDirectory: dir, forLocalization: l)
                            == bundle.hit(name, type, dir, .given(l)).map(bundle.absolute),
                            "kept \(String(describing: (name, type, dir, l)))")
                }
            }
        }
    }

    /// Reads of one lookup in a snapshot, tables in use (what a lookup does).
    static func reads(_ bundle: IndexedBundle, _ name: String, _ type: String?, _ dir: String?) throws -> Int {
        try bundle.reader.store.read { snap in
            let before = snap.reads
            _ = try bundle.single(in: snap, name, type, dir, direct: { _ in () }, general: { _ in () })
            return snap.reads - before
        }
    }

    @Test("the second read of a directory keeps its table; later lookups there read nothing, variant folders are read each time")
    func readsSpared() throws {
        let f = try BundleFixture(Self.files)
        let bundle = try f.bundle("A.bundle")
        // foundation-linux's steps for A.bundle: global, en.lproj, Base.lproj.
        #expect(try Self.reads(bundle, "icon", "png", nil) == 1)
        #expect(try Self.reads(bundle, "readme", nil, nil) == 1)        // global read again: its table is made
        #expect(try Self.reads(bundle, "a.b", "c", nil) == 0)
        #expect(try Self.reads(bundle, "nothing", "txt", nil) == 2)     // global from the table; en and Base read once
        #expect(try Self.reads(bundle, "gone", "txt", nil) == 2)        // en and Base read again: tables made
        #expect(try Self.reads(bundle, "missing", "txt", nil) == 0)
        #expect(try Self.reads(bundle, "only-en", "txt", nil) == 0)
        for _ in 0..<3 { #expect(try Self.reads(bundle, "logo", "png", "Var") == 1) }
        // The table-free count stays the index's.
        #expect(try bundle.readsForLookup(name: "missing", type: "txt", subdirectory: nil) == 3)
    }

    @Test("many directories: each kept once read twice, all of them found again; past the bound, all dropped")
    func manyDirectories() throws {
        // More folders than the table's first slots hold (16), so it grows while tables are kept.
        var files = ["A.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "a", "CFBundleDevelopmentRegion": "en"])]
        for i in 0..<40 { files["A.bundle/D\(i)/f\(i).txt"] = "" }
        // Folders enough to pass the bound: a folder the bundle lacks is not read or noted.
        for i in 0..<DirectoryTables.directoryCapacity { files["A.bundle/E\(i)/e.txt"] = "" }
        let f = try BundleFixture(files)
        let bundle = try f.bundle("A.bundle")
        for round in 0..<3 {
            for i in 0..<40 {
                // D<i> is read from the index at its first ask, its table made at the second
                // (the path asked below), and every later ask reads nothing.
                #expect(try Self.reads(bundle, "f\(i)", "txt", "D\(i)") == (round == 0 ? 1 : 0), "round \(round) D\(i)")
                #expect(try bundle.pathReadingIndex(forResource: "f\(i)", ofType: "txt", inDirectory: "D\(i)")
                        == f.root + "/A.bundle/D\(i)/f\(i).txt")
            }
        }
        // Past `directoryCapacity` directories noted, everything is dropped and noted again.
        for i in 0..<DirectoryTables.directoryCapacity {
            #expect(try Self.reads(bundle, "x", "txt", "E\(i)") == 1)
        }
        #expect(try Self.reads(bundle, "f0", "txt", "D0") == 1, "D0's table was dropped with the rest")
    }

    @Test("a lookup answered from kept tables alone sees the next commit")
    func keptAnswersFollowCommits() throws {
        let f = try BundleFixture(Self.files)
        let bundle = try f.bundle("A.bundle")
        // Three different names read the global folder, en.lproj and Base.lproj twice: their
        // tables are kept, and the next names are answered from them.
        for name in ["one", "two", "three"] { #expect(try bundle.path(forResource: name, ofType: "txt") == nil) }
        #expect(try Self.reads(bundle, "four", "txt", nil) == 0)
        #expect(try bundle.path(forResource: "new", ofType: "txt") == nil)
        #expect(try bundle.path(forResource: "new", ofType: "txt", inDirectory: nil, forLocalization: "en") == nil)
        try f.add(["A.bundle/new.txt": "", "A.bundle/en.lproj/newer.txt": ""])
        try f.build()
        #expect(try bundle.path(forResource: "new", ofType: "txt") == f.root + "/A.bundle/new.txt")
        #expect(try bundle.path(forResource: "new", ofType: "txt", inDirectory: nil, forLocalization: "en")
                == f.root + "/A.bundle/new.txt")
        #expect(try bundle.path(forResource: "newer", ofType: "txt") == f.root + "/A.bundle/en.lproj/newer.txt")
        try FileManager.default.removeItem(atPath: f.root + "/A.bundle/new.txt")
        try f.build()
        for name in ["one", "two", "three"] { #expect(try bundle.path(forResource: name, ofType: "txt") == nil) }
        #expect(try bundle.path(forResource: "new", ofType: "txt") == nil)
    }

    @Test("a lazy source begins a transaction at the first directory not kept, and restarts when its commit is not the one asked for")
    func lazySource() throws {
        let f = try BundleFixture(Self.files)
        let bundle = try f.bundle("A.bundle")
        let newest = bundle.reader.store.environment.newestTransactionID()
        func find(_ name: String, in source: inout DirectorySource) throws -> String? {
            switch try DirectLookup.find(plan: bundle.plan, name: name, type: "txt", subdirectory: nil, in: &source,
                                         { String(decoding: $0.path, as: UTF8.self) }) {
            case .found(let path): return path
            case .notFound, .general: return nil
            }
        }
        // Nothing kept yet: the lookup reads the index in a transaction of the newest commit.
        var source = DirectorySource.lazy(store: bundle.reader.store, transaction: newest)
        #expect(try find("only-en", in: &source) == f.root + "/A.bundle/en.lproj/only-en.txt")
        source.end()
        // Told of an older commit than the index's, it does not answer from a newer snapshot.
        var stale = DirectorySource.lazy(store: bundle.reader.store, transaction: newest - 1)
        #expect(throws: DirectorySource.Restart.self) { try find("only-en", in: &stale) }
        stale.end()
        // Ended sources leave no reader behind: a writer's commit and the next asks go through.
        try f.add(["A.bundle/later.txt": ""])
        try f.build()
        #expect(try bundle.path(forResource: "later", ofType: "txt") == f.root + "/A.bundle/later.txt")
    }

    @Test("a commit makes every table stale: the next lookup sees the change")
    func commitInvalidates() throws {
        let f = try BundleFixture(Self.files)
        let bundle = try f.bundle("A.bundle")
        for _ in 0..<3 { #expect(try bundle.pathReadingIndex(forResource: "new", ofType: "txt", inDirectory: nil) == nil) }
        #expect(try Self.reads(bundle, "nothing", "txt", nil) == 0)
        try f.add(["A.bundle/new.txt": ""])
        try f.build()
        #expect(try bundle.pathReadingIndex(forResource: "new", ofType: "txt", inDirectory: nil) == f.root + "/A.bundle/new.txt")
        try FileManager.default.removeItem(atPath: f.root + "/A.bundle/icon.png")
        try f.build()
        for _ in 0..<3 { #expect(try bundle.pathReadingIndex(forResource: "icon", ofType: "png", inDirectory: nil) == f.root + "/A.bundle/en.lproj/icon.png") }
    }

    @Test("a name table compares names byte for byte and finds every entry among many")
    func nameTable() throws {
        var names = (0..<3_000).map { "file\($0).png" }
        names += ["caf\u{E9}", "cafe\u{301}", "", "a", "A"]
        let path = Array("Resources".utf8)
        let made = try path.withUnsafeBytes { path in
            try NameTable(path: path) { body in
                for (i, name) in names.enumerated() {
                    var n = name
                    try n.withUTF8 { try body(UnsafeRawBufferPointer($0), DirectoryEntry.Flags(rawValue: UInt8(i % 7))) }
                }
            }
        }
        let table = try #require(made)
        #expect(table.count == names.count)
        for (i, name) in names.enumerated() {
            var n = name
            #expect(n.withUTF8 { table.flags(of: UnsafeRawBufferPointer($0)) }?.rawValue == UInt8(i % 7), "\(name)")
        }
        for absent in ["file3000.png", "caf\u{E9} ", "b", "File1.png", "file1.pn"] {
            var n = absent
            #expect(n.withUTF8 { table.flags(of: UnsafeRawBufferPointer($0)) } == nil, "\(absent)")
        }
        #expect(path.withUnsafeBytes { table.isListing(of: $0) })
        #expect(!Array("Resources/x".utf8).withUnsafeBytes { table.isListing(of: $0) })
    }
}
