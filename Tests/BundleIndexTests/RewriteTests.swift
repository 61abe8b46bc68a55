// Rewriting a bundle's records in place (`LMDBTransaction.replacePrefix`): the index ends as
// deleting and putting them all would leave it, and records that did not change are not written.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Rewriting a bundle")
struct RewriteTests {
    /// Every entry of a database, in key order: each key, then its value.
    static func entries(_ store: IndexStore, _ dbi: IndexStore.MDB_dbi_t) throws -> [[UInt8]] {
        try store.environment.read { txn in
            var out: [[UInt8]] = []
            try txn.scan(dbi, prefix: []) { key, value in
                out.append(Array(key))
                out.append(Array(value))
                return true
            }
            return out
        }
    }

    @Test("replacePrefix leaves what deleting the prefix and putting each entry leave, and counts what it kept")
    func matchesDeleteAndPut() throws {
        var random = SeededRandom(state: 11)
        let directory = makeTempDirectory(prefix: "rewrite")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func value(_ length: Int) -> [UInt8] { (0..<length).map { _ in UInt8(random.below(256)) } }
        for round in 0..<40 {
            let plain = try IndexStore.openForWriting(path: "\(directory)/plain-\(round)")
            let merged = try IndexStore.openForWriting(path: "\(directory)/merged-\(round)")
            // Three bundles' prefixes; the middle one is rewritten. Values up to 3 000 bytes: some
            // entries take overflow pages.
            var before: [[UInt8]: [UInt8]] = [:]
            for bundle: UInt8 in 1...3 {
                for _ in 0..<random.below(300) {
                    before[[0, 0, 0, bundle] + value(1 + random.below(6))] = value(random.below(10) == 0 ? 2_000 + random.below(1_000) : random.below(200))
                }
            }
            for store in [plain, merged] {
                try store.environment.write { txn in
                    for (k, v) in before { try txn.put(store.resources, key: k, value: v) }
                }
            }
            // The new entries of bundle 2: some old keys with their value, some with another,
            // some new keys; the other old keys go.
            var after: [[UInt8]: [UInt8]] = [:]
            for (k, v) in before where k[3] == 2 {
                switch random.below(3) {
                case 0: after[k] = v
                case 1: after[k] = value(random.below(300))
                default: break
                }
            }
            for _ in 0..<random.below(200) { after[[0, 0, 0, 2] + value(1 + random.below(6))] = value(random.below(300)) }
            let same = after.filter { before[$0.key] == $0.value }.count
            // LMDB's order: bytes as unsigned, a key before the longer keys it starts.
            let sorted = after.sorted { $0.key.lexicographicallyPrecedes($1.key) }
            try plain.environment.write { txn in
                try txn.deletePrefix(plain.resources, prefix: [0, 0, 0, 2])
                for (k, v) in sorted { try txn.put(plain.resources, key: k, value: v) }
            }
            let counts = try merged.environment.write { txn in
                try txn.replacePrefix(merged.resources, prefix: [0, 0, 0, 2]) { write in
                    for (k, v) in sorted {
                        try k.withUnsafeBytes { key in try v.withUnsafeBytes { try write(key, $0) } }
                    }
                }
            }
            #expect(try Self.entries(merged, merged.resources) == Self.entries(plain, plain.resources), "round \(round)")
            #expect(counts.unchanged == same, "round \(round): entries found unchanged")
            #expect(counts.put == after.count - same, "round \(round): entries put")
        }
    }

    @Test("full builds over an unchanged tree leave the index file the size it was")
    func fullBuildsKeepTheSize() throws {
        var files: [String: String] = [:]
        for b in 0..<12 {
            files["B\(b).app/Info.plist"] = infoPlist(["CFBundleIdentifier": "org.example.b\(b)", "CFBundleDevelopmentRegion": "en"])
            for l in ["en", "de", "fr", "ja"] {
                files["B\(b).app/\(l).lproj/Localizable.strings"] = (0..<60).map { "\"key \($0)\" = \"\(l) text \($0) of B\(b)\";" }
                    .joined(separator: "\n")
                for i in 0..<20 { files["B\(b).app/\(l).lproj/picture-\(i).png"] = "p" }
            }
            for i in 0..<80 { files["B\(b).app/resource-\(i).txt"] = "r" }
        }
        let f = try BundleFixture(files)
        try f.build()
        let data = f.indexPath + "/data.mdb"
        func size() throws -> Int { try FileManager.default.attributesOfItem(atPath: data)[.size] as! Int }
        let first = try size()
        let content = try IncrementalBuildTests.content(f.indexPath)
        for _ in 0..<4 { _ = try IndexBuilder.build(roots: [f.root], indexPath: f.indexPath, full: true) }
        // Each full build rewrites every bundle record (its scan time changes): their pages, and
        // LMDB's own, may take a few pages more; the resource and strings records stay in place.
        // Rewriting every record made the file grow by its whole size at each build.
        let last = try size()
        #expect(last <= first + 16 * 4096, "data.mdb: \(first) bytes after the first build, \(last) after four full builds")
        #expect(try IncrementalBuildTests.content(f.indexPath) == content)
        #expect(try IndexVerifier.verify(indexPath: f.indexPath).isEmpty)
    }
}
