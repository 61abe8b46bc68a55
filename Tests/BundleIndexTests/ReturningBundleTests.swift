// A bundle that leaves the index and comes back to the same path gets its id again, so that a
// bundle opened before it left (an `IndexedBundle`, a drop-in, a C handle) finds its resources
// again (review w26, finding 7). Before, it came back under a new id and every handle opened
// before answered nothing until it was opened again.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore
import BundleIndexFoundation

@Suite("Bundles that leave the index and come back")
struct ReturningBundleTests {
    static let tree = [
        "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "a", "CFBundleDevelopmentRegion": "en"]),
        "A.app/a.txt": "", "A.app/en.lproj/Localizable.strings": "\"k\" = \"A\";",
        "B.app/Info.plist": infoPlist(["CFBundleIdentifier": "b"]), "B.app/b.txt": "",
    ]

    private func id(_ f: BundleFixture, _ relative: String) throws -> UInt64? {
        try IndexReader(path: f.indexPath).bundle(atPath: f.root + "/" + relative)?.record.id
    }

    @Test("deleted and put back between two builds: the same id, and a bundle opened before finds its files")
    func deletedAndPutBack() throws {
        let f = try BundleFixture(Self.tree)
        try f.build()
        let first = try #require(try id(f, "A.app"))
        let opened = try #require(try IndexReader(path: f.indexPath).bundle(atPath: f.root + "/A.app"))
        let saved = f.root + "-A.app"
        try FileManager.default.moveItem(atPath: f.root + "/A.app", toPath: saved)
        defer { try? FileManager.default.removeItem(atPath: saved) }
        try f.build()
        #expect(try id(f, "A.app") == nil)
        #expect(try opened.rel("a", "txt") == nil, "gone from the index: nothing found")
        try FileManager.default.moveItem(atPath: saved, toPath: f.root + "/A.app")
        FileManager.default.createFile(atPath: f.root + "/A.app/new.txt", contents: Data())
        try f.build()
        #expect(try id(f, "A.app") == first)
        #expect(try opened.rel("a", "txt") == "a.txt")
        #expect(try opened.rel("new", "txt") == "new.txt")
        #expect(try opened.localizedString(forKey: "k", value: nil, table: nil) == "A")
        #expect(try IndexVerifier.verify(indexPath: f.indexPath, roots: [f.root]) == [])
    }

    @Test("another path never takes a returned id; a new bundle gets a fresh one")
    func otherPathsGetTheirOwn() throws {
        let f = try BundleFixture(Self.tree)
        try f.build()
        let a = try #require(try id(f, "A.app")), b = try #require(try id(f, "B.app"))
        // A moves to C: C is new (a fresh id), A's id is kept for A's path.
        try FileManager.default.moveItem(atPath: f.root + "/A.app", toPath: f.root + "/C.app")
        try f.build()
        let c = try #require(try id(f, "C.app"))
        #expect(c != a && c != b && c > b)
        // Back again: A has its id, C's is kept for C's path.
        try FileManager.default.moveItem(atPath: f.root + "/C.app", toPath: f.root + "/A.app")
        try f.build()
        #expect(try id(f, "A.app") == a && id(f, "C.app") == nil)
        let store = try IndexStore.openForReading(path: f.indexPath)
        let kept = try store.read { snap in try snap.txn.get(store.retired, key: Array((f.root + "/C.app").utf8)) }
        #expect(kept?.count == 20 && kept?.prefix(4).elementsEqual(withUnsafeBytes(of: UInt32(c).littleEndian) { Array($0) }) == true)
        // A bundle made where none was before: past every id given.
        try FileManager.default.createDirectory(atPath: f.root + "/D.app", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: f.root + "/D.app/Info.plist", contents: Data(infoPlist(["CFBundleIdentifier": "d"]).utf8))
        try f.build()
        #expect(try id(f, "D.app") == c + 1)
        #expect(try IndexVerifier.verify(indexPath: f.indexPath, roots: [f.root]) == [])
    }

    @Test("removed and written again in one transaction: the same id")
    func removedAndWrittenInOneCommit() throws {
        let f = try BundleFixture(Self.tree)
        try f.build()
        let a = try #require(try id(f, "A.app"))
        let store = try IndexStore.openForWriting(path: f.indexPath)
        var scanner = BundleScanner(bundlePath: f.root + "/A.app")
        let scanned = try scanner.scan()
        try store.write { w in
            try w.removeBundle(path: f.root + "/A.app")
            try w.addBundle(scanned, root: f.root, scanBegan: wallClockNanoseconds())
            try w.bumpGeneration()
        }
        #expect(try id(f, "A.app") == a)
        #expect(try IndexReader(path: f.indexPath).bundle(atPath: f.root + "/A.app")?.rel("a", "txt") == "a.txt")
    }

    /// The paths `retired` keeps ids for, and how many entries it has (two per path).
    private func retiredPaths(_ store: IndexStore) throws -> (paths: [String], entries: Int) {
        try store.read { snap in
            var paths: [String] = []
            try snap.txn.scan(store.retired, prefix: Array("/".utf8)) { key, _ in
                paths.append(String(decoding: key, as: UTF8.self))
                return true
            }
            return (paths, try snap.txn.entryCount(store.retired))
        }
    }

    @Test("past the limit, the path retired longest ago is forgotten, whatever its place in key order")
    func limit() throws {
        let f = try BundleFixture(Self.tree.merging(["Z.app/Info.plist": infoPlist(["CFBundleIdentifier": "z"])]) { $1 })
        try f.build()
        let store = try IndexStore.openForWriting(path: f.indexPath)
        // B, then A (which sorts first), in one commit: A is the newer and stays.
        try store.write { w in
            try w.removeBundle(path: f.root + "/B.app", retiredLimit: 1)
            try w.removeBundle(path: f.root + "/A.app", retiredLimit: 1)
        }
        #expect(try retiredPaths(store) == ([f.root + "/A.app"], 2))
        // In a later commit Z: A goes (before, the first path in key order went, so a path
        // sorting first was forgotten as soon as it was retired once the limit was reached).
        try store.write { w in try w.removeBundle(path: f.root + "/Z.app", retiredLimit: 1) }
        #expect(try retiredPaths(store) == ([f.root + "/Z.app"], 2))
        try store.write { w in try w.removeBundle(path: f.root + "/Z.app", retiredLimit: 1) }
    }

    @Test("an id goes back only to a bundle with the same identifiers: a handle never answers another bundle put at its path")
    func otherBundleAtThePath() throws {
        let f = try BundleFixture(Self.tree)
        try f.build()
        let a = try #require(try id(f, "A.app"))
        let opened = try #require(try f.reader().bundle(identifier: "a", context: .foundationLinux))
        try FileManager.default.removeItem(atPath: f.root + "/A.app")
        try f.build()
        try f.add(["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "other"]), "A.app/secret.txt": ""])
        try f.build()
        let other = try #require(try id(f, "A.app"))
        #expect(other != a)
        #expect(try opened.rel("secret", "txt") == nil)
        // The other bundle leaves and comes back: its own id again, and its handle answers.
        let openedOther = try #require(try f.reader().bundle(identifier: "other", context: .foundationLinux))
        let saved = f.root + "-other"
        try FileManager.default.moveItem(atPath: f.root + "/A.app", toPath: saved)
        try f.build()
        try FileManager.default.moveItem(atPath: saved, toPath: f.root + "/A.app")
        try f.add(["A.app/again.txt": ""])
        try f.build()
        #expect(try id(f, "A.app") == other)
        #expect(try openedOther.rel("again", "txt") == "again.txt" && opened.rel("again", "txt") == nil)
        #expect(try IndexVerifier.verify(indexPath: f.indexPath, roots: [f.root]) == [])
    }

    @Test("a damaged kept id is not given back: the bundle gets a fresh one")
    func damagedKeptID() throws {
        let f = try BundleFixture(Self.tree)
        try f.build()
        let saved = f.root + "-B.app"
        try FileManager.default.moveItem(atPath: f.root + "/B.app", toPath: saved)
        defer { try? FileManager.default.removeItem(atPath: saved) }
        try f.build()
        let store = try IndexStore.openForWriting(path: f.indexPath)
        let key = Array((f.root + "/B.app").utf8)
        let kept = try #require(try store.read { try $0.txn.get(store.retired, key: key) })
        func with(id: UInt32) -> [UInt8] { withUnsafeBytes(of: id.littleEndian) { Array($0) } + kept.dropFirst(4) }
        // Too short (the format 19 of one commit: the id alone); an id never given (past the
        // next one); 0, which no bundle has; A's id, which A's records use.
        let a = try #require(try id(f, "A.app"))
        for bad: [UInt8] in [Array(kept.prefix(4)), with(id: 999), with(id: 0), with(id: UInt32(a))] {
            try store.write { try $0.txn.put(store.retired, key: key, value: bad) }
            let next = try #require(try store.read { try store.metaU64(.nextBundleID, in: $0.txn) })
            try FileManager.default.moveItem(atPath: saved, toPath: f.root + "/B.app")
            try f.build()
            let given = try #require(try id(f, "B.app"))
            #expect(given == next, "a fresh id, not \(bad)")
            try FileManager.default.moveItem(atPath: f.root + "/B.app", toPath: saved)
            try f.build()
        }
    }

    @Test("the drop-in opened before the bundle left answers from the index again once it is back")
    func dropIn() throws {
        let f = try BundleFixture(Self.tree)
        try f.build()
        let app = try #require(IndexedFoundationBundle(path: f.root + "/A.app", index: f.indexPath))
        #expect(app.path(forResource: "a", ofType: "txt") == f.root + "/A.app/a.txt")
        let saved = f.root + "-A.app"
        try FileManager.default.moveItem(atPath: f.root + "/A.app", toPath: saved)
        defer { try? FileManager.default.removeItem(atPath: saved) }
        try f.build()
        try FileManager.default.moveItem(atPath: saved, toPath: f.root + "/A.app")
        FileManager.default.createFile(atPath: f.root + "/A.app/later.txt", contents: Data())
        try f.build()
        // Foundation's own Bundle keeps what it first read; the drop-in reads the index.
        #expect(app.path(forResource: "later", ofType: "txt") == f.root + "/A.app/later.txt")
        #expect(app.localizedString(forKey: "k", value: nil, table: nil) == "A")
    }
}
