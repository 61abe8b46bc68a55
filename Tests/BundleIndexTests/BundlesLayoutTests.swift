// A first build writes the bundle records together, in one run of pages (`HeldBundleRecords`;
// docs/performance.md, "The bundles database laid out together"): the first open of each bundle
// then finds its record on a page the kernel mapped with a neighbour's.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("The bundles database laid out together")
struct BundlesLayoutTests {
    /// 300 bundles, each with a long Info.plist value and files of its own, so that their
    /// records fill many pages and their resource records many more.
    static let tree: [String: String] = {
        var files: [String: String] = [:]
        for b in 0..<300 {
            let name = String(format: "App%03d.app", b)
            files[name + "/Info.plist"] = infoPlist(["CFBundleIdentifier": "com.example.app\(b)",
                                                     "CFBundleGetInfoString": String(repeating: "about this app ", count: 12)])
            for f in 0..<40 { files[name + "/resource-\(f)-of-a-long-name.png"] = "" }
            files[name + "/en.lproj/Localizable.strings"] = "\"k\" = \"v\";"
        }
        return files
    }()

    /// The first and last page holding a record of `dbi`, and how many distinct pages do.
    static func pages(_ f: BundleFixture, _ database: (IndexStore) -> UInt32) throws -> (span: Int, pages: Int) {
        let store = try IndexStore.openForReading(path: f.indexPath)
        return try store.read { snap in
            var pages = Set<UInt>()
            try snap.txn.scan(database(store), prefix: []) { _, value in
                pages.insert(UInt(bitPattern: value.baseAddress) / 4096)
                return true
            }
            return (Int(pages.max()! - pages.min()!) + 1, pages.count)
        }
    }

    @Test("a first build writes the bundle records in one run of pages, among many pages of other records")
    func oneRun() throws {
        let f = try BundleFixture(Self.tree)
        let summary = try f.build()
        #expect(summary.bundles == 300)
        let bundles = try Self.pages(f, { $0.bundles })
        let resources = try Self.pages(f, { $0.resources })
        #expect(bundles.pages >= 10, "the records fill \(bundles.pages) pages")
        // A run: their pages and the branch pages between them, nothing of the other databases.
        #expect(bundles.span <= bundles.pages + bundles.pages / 4 + 2, "\(bundles.pages) pages over \(bundles.span)")
        #expect(resources.span > 2 * bundles.span, "the resource records lie over \(resources.span) pages")

        // Every record reads back as written, and a build over it keeps them.
        let reader = try f.reader()
        for b in [0, 150, 299] {
            let app = try #require(try reader.bundle(atPath: f.root + String(format: "/App%03d.app", b), context: .foundationLinux))
            #expect(app.bundleIdentifier == "com.example.app\(b)")
        }
        #expect(try f.build().bundles == 300)
        #expect(try IndexVerifier.verify(indexPath: f.indexPath).isEmpty)
    }

    @Test("bundle records past the held limit: those held are written together, the rest as they come, all of them read back")
    func pastTheLimit() throws {
        // 300 records of a 200th of the limit each: the limit is reached two thirds of the way.
        let long = String(repeating: "x", count: HeldBundleRecords.byteLimit / 200)
        var files: [String: String] = [:]
        for b in 0..<300 {
            files[String(format: "App%03d.app/Info.plist", b)] = infoPlist(["CFBundleIdentifier": "com.example.app\(b)",
                                                                            "CFBundleGetInfoString": long + "\(b)"])
        }
        let f = try BundleFixture(files)
        #expect(try f.build().bundles == 300)
        let reader = try f.reader()
        for b in [0, 199, 200, 201, 299] {
            let app = try #require(try reader.bundle(atPath: f.root + String(format: "/App%03d.app", b), context: .foundationLinux))
            #expect(app.bundleIdentifier == "com.example.app\(b)")
            #expect(try app.object(forInfoDictionaryKey: "CFBundleGetInfoString") == .string(long + "\(b)"))
        }
        #expect(try IndexVerifier.verify(indexPath: f.indexPath).isEmpty)
    }

    @Test("a first build of two roots: the first root's records are written before the second is read, all of them kept")
    func twoRoots() throws {
        var files: [String: String] = [:]
        for root in ["one", "two"] {
            for b in 0..<20 {
                files["\(root)/App\(b).app/Info.plist"] = infoPlist(["CFBundleIdentifier": "com.example.\(root).\(b)"])
            }
        }
        let f = try BundleFixture(files)
        let summary = try IndexBuilder.build(roots: [f.root + "/one", f.root + "/two"], indexPath: f.indexPath)
        #expect(summary.bundles == 40 && summary.bundlesRemoved == 0)
        let reader = try f.reader()
        for root in ["one", "two"] {
            for b in [0, 19] {
                let app = try #require(try reader.bundle(atPath: f.root + "/\(root)/App\(b).app", context: .foundationLinux))
                #expect(app.bundleIdentifier == "com.example.\(root).\(b)")
            }
        }
        #expect(try IndexVerifier.verify(indexPath: f.indexPath).isEmpty)
    }
}
