// The map grows when the index outgrows it (issue 12, item 10; docs/reliability.md, "Address
// space"): a build into a map that starts tiny completes, and when the map cannot grow the error
// says which limit stops it.
import Foundation
import Testing
@_spi(Testing) @testable import BundleIndex

@Suite("Reliability: growing the map")
struct MapGrowthTests {
    static let kibibyte = 1 << 10, mebibyte = 1 << 20

    @Test("a build whose index outgrows a tiny starting map grows the map and answers right")
    func buildGrowsATinyMap() throws {
        let f = try BundleFixture(SharedIndexTests.tree)
        let summary = try IndexBuilder.build(roots: [f.root], indexPath: f.indexPath, progress: nil, beforeCommit: nil,
                                             initialMapSize: 32 * Self.kibibyte)
        #expect(summary.bundles == 1 && summary.resources == 2_001, "\(summary.bundles) \(summary.resources)")
        // Format 13 keeps these 2 001 names in one listing: 64 KiB of index, twice the first map.
        #expect(summary.indexBytes >= 64 * Self.kibibyte, "the data outgrew the first map: \(summary.indexBytes)")
        #expect(try Self.found(f, ["resource-0", "resource-999", "resource-1999"]))
        // A rebuild that adds as much again grows a map that starts at the file's size.
        try f.add(Dictionary(uniqueKeysWithValues: (0..<6_000).map { ("Phone.app/more-\($0).txt", "") }))
        let again = try IndexBuilder.build(roots: [f.root], indexPath: f.indexPath, progress: nil, beforeCommit: nil,
                                           initialMapSize: 32 * Self.kibibyte)
        #expect(again.resources == 8_001 && again.indexBytes > summary.indexBytes)
        #expect(try Self.found(f, ["resource-1999", "more-0", "more-5999"]))
        #expect(try IndexVerifier.verify(indexPath: f.indexPath).isEmpty)
    }

    /// Whether each `name`.txt of Phone.app is found (the reader is closed again on return, so
    /// the next build opens the index afresh, with the test's map size).
    static func found(_ f: BundleFixture, _ names: [String]) throws -> Bool {
        let phone = try #require(try f.reader().bundle(atPath: f.root + "/Phone.app", context: .foundationLinux))
        return try names.allSatisfy { try phone.rel($0, "txt") == $0 + ".txt" }
    }

    @Test("the map doubles, within half of what an address-space limit leaves")
    func growthSize() throws {
        let m = Self.mebibyte
        #expect(try StorageSpace.grownMapSize(path: "/i", current: 64 * m, limit: nil, inUse: 0) == 128 * m)
        // 4 GiB limit, 3 GiB in use: the map may take half of the 1 GiB left.
        #expect(try StorageSpace.grownMapSize(path: "/i", current: 1_024 * m, limit: 4_096 * m, inUse: 3_072 * m)
                == 1_536 * m)
        #expect(try StorageSpace.grownMapSize(path: "/i", current: 64 * m, limit: 4_096 * m, inUse: 100 * m) == 128 * m)
    }

    @Test("when a limit leaves no room to grow the map, the error names the limit and says to raise it")
    func mapFullUnderALimitNamesTheLimit() throws {
        let m = Self.mebibyte
        #expect {
            try StorageSpace.grownMapSize(path: "/i", current: 1_024 * m, limit: 4_096 * m, inUse: 4_095 * m)
        } throws: { error in
            let text = "\(error)"
            return text.contains("the index no longer fits in its map of 1024 MiB (MDB_MAP_FULL)")
                && text.contains("the address-space limit (ulimit -v) of 4096 MiB leaves 1 MiB, not enough to grow it; raise the limit")
        }
        // Mapping more than the limit allows fails before LMDB unmaps anything.
        let failed = StorageSpace.growthError(path: "/i", current: 64 * m, target: 128 * m, code: ENOMEM)
        #expect("\(failed)".contains("growing the index map from 64 MiB to 128 MiB failed: Cannot allocate memory"))
    }

    @Test("a reader whose map another process's build outgrew takes the new size and answers")
    func readerAdoptsTheGrownMap() throws {
        let f = try BundleFixture(SharedIndexTests.tree)
        #expect(try run([bundleidxBinary, "build", f.root, "--index", f.indexPath]).status == 0)
        // A map as small as LMDB allows: the data file as it is now.
        let reader = try LMDBEnvironment(path: f.indexPath, readOnly: true, mapSize: 64 * Self.kibibyte)
        let before = reader.mapSize()
        try f.add(Dictionary(uniqueKeysWithValues: (0..<4_000).map { ("Phone.app/more-\($0).txt", "") }))
        #expect(try run([bundleidxBinary, "build", f.root, "--index", f.indexPath]).status == 0)
        let used = try reader.read { _ in reader.usedBytes() }
        #expect(used > before && reader.mapSize() >= used, "map \(before) -> \(reader.mapSize()), data \(used)")
    }
}
