// The incremental build's stamp checks made on a thread of their own, ahead of the walk
// (UnchangedBundlesAhead): in the walk's order, and answering as the walk's own checks do
// (docs/scanning.md, "Incremental builds").
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Unchanged bundles checked ahead of the walk", .serialized)
struct UnchangedBundlesAheadTests {
    /// `count` flat bundles with two strings tables each, spread over folders whose names sort
    /// apart in byte order and in the walk's order (`x/y` inside `x`, siblings `x-y`, `x.y`,
    /// `x y`), and a bundle nested in the first one next to a sibling named like it.
    static func manyBundles(_ count: Int) -> [String: String] {
        var files = [
            "x/B0.bundle/Inner.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "inner"]),
            "x/B0.bundle-2.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "b0-2"]),
        ]
        for i in 0..<count {
            let bundle = ["x", "x-y", "x.y", "x y", "x/y"][i % 5] + "/B\(i).bundle"
            files[bundle + "/Info.plist"] = infoPlist(["CFBundleIdentifier": "b\(i)"])
            files[bundle + "/en.lproj/Localizable.strings"] = "\"k\" = \"\(i)\";"
            files[bundle + "/de.lproj/Localizable.strings"] = "\"k\" = \"\(i) de\";"
        }
        return files
    }

    @Test("bundles are checked in the order the walk finds them: what a folder holds before the folder's siblings")
    func walkOrder() throws {
        let f = try BundleFixture(Self.manyBundles(20))
        let found = try TreeWalker().walk(root: f.root) { _ in }.found
        #expect(found.count == 22)
        #expect(found == found.sorted(by: UnchangedBundlesAhead.walkOrder))
        #expect(found != found.sorted(by: byteOrder), "the fixture tells the walk's order from byte order")
    }

    @Test("the walk's order compares bytes with `/` below every other byte, over random paths")
    func walkOrderOverRandomPaths() {
        // The order stated over the bytes as a sequence, against the comparison in the buffers.
        func stated(_ a: String, _ b: String) -> Bool {
            let slash = UInt8(ascii: "/")
            return a.utf8.lexicographicallyPrecedes(b.utf8) { x, y in x == slash ? y != slash : (y != slash && x < y) }
        }
        var generator = SystemRandomNumberGenerator()
        let pieces = ["a", "b", "-", ".", "/", " ", "é", "e\u{301}", "~", "0"]
        func path() -> String { (0..<Int.random(in: 0...7, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined() }
        for _ in 0..<20_000 {
            let a = path(), b = Bool.random(using: &generator) ? path() : a + path()
            #expect(UnchangedBundlesAhead.walkOrder(a, b) == stated(a, b), "\(a.debugDescription) \(b.debugDescription)")
            #expect(UnchangedBundlesAhead.walkOrder(b, a) == stated(b, a), "\(b.debugDescription) \(a.debugDescription)")
        }
    }

    @Test("its answers are the walk's own checks, whatever order they are asked in and whichever bundles are passed over")
    func answersAreTheWalksOwn() throws {
        let t = try IncrementalBuildTests.Tree(Self.manyBundles(150), links: [:])
        _ = try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath)
        try t.rewrite("x/B5.bundle/en.lproj/Localizable.strings", "\"k\" = \"five\";")
        try t.fixture.add(["x-y/B101.bundle/fr.lproj/Localizable.strings": "\"k\" = \"cent un\";"])
        try t.remove("x.y/B142.bundle")
        t.settle()
        let store = try IndexStore.openForReading(path: t.fixture.indexPath)
        try store.read { snapshot in
            let paths = try snapshot.bundles(under: t.root).map(\.path)
            #expect(paths.count == 152)
            let inWalkOrder = paths.sorted(by: UnchangedBundlesAhead.walkOrder)
            let own = UnchangedBundles(snapshot: snapshot, root: t.root)
            func described(_ reuse: UnchangedBundles.Reuse?) -> String {
                reuse.map { "\($0.resources) \($0.listings.keys.sorted(by: byteOrder)) \($0.skipped)" } ?? "read again"
            }
            let expected = Dictionary(uniqueKeysWithValues: paths.map { ($0, described(own.reuse($0))) })
            #expect(expected.values.filter { $0 == "read again" }.count == 3)
            let orders = [
                inWalkOrder,
                inWalkOrder.enumerated().filter { $0.offset % 3 == 0 }.map(\.element),   // bundles passed over
                inWalkOrder.reversed(),                                                  // every answer too late
                [t.root + "/x/New.bundle"] + inWalkOrder.prefix(70) + inWalkOrder.prefix(3),  // not indexed; asked twice
            ]
            for (n, asked) in orders.enumerated() {
                let ahead = UnchangedBundlesAhead(bundles: paths, root: t.root, index: store)
                if n == 0 { Thread.sleep(forTimeInterval: 1) }   // time to check some before the walk asks
                var checkedByTheWalk = 0
                for path in asked {
                    let answer = ahead.reuse(path) { checkedByTheWalk += 1; return own.reuse($0) }
                    #expect(described(answer) == expected[path, default: "read again"], "order \(n): \(path)")
                }
                ahead.stop()
                if n == 0 { #expect(checkedByTheWalk < asked.count, "the thread answered some") }
            }
        }
    }

    @Test("each bundle is checked once, by the walk or by the thread, when the walk keeps catching up with it")
    func eachBundleCheckedOnce() throws {
        let t = try IncrementalBuildTests.Tree(Self.manyBundles(150), links: [:])
        _ = try IndexBuilder.build(roots: [t.root], indexPath: t.fixture.indexPath)
        let store = try IndexStore.openForReading(path: t.fixture.indexPath)
        try store.read { snapshot in
            let paths = try snapshot.bundles(under: t.root).map(\.path).sorted(by: UnchangedBundlesAhead.walkOrder)
            let own = UnchangedBundles(snapshot: snapshot, root: t.root)
            let expected = paths.map { own.reuse($0)?.resources }
            #expect(expected.allSatisfy { $0 != nil })
            // A walk that only asks is faster than the checks, so it keeps finding the bundle
            // the thread is checking; each time it used to check that bundle again.
            for round in 0..<5 {
                let ahead = UnchangedBundlesAhead(bundles: paths, root: t.root, index: store)
                var checkedByTheWalk = 0
                let answers = paths.map { path in
                    ahead.reuse(path) { checkedByTheWalk += 1; return own.reuse($0) }?.resources
                }
                ahead.stop()
                #expect(answers == expected, "round \(round)")
                #expect(checkedByTheWalk + ahead.checksMade == paths.count,
                        "round \(round): \(checkedByTheWalk) by the walk, \(ahead.checksMade) by the thread")
            }
        }
    }
}
