// Damage inside data.mdb, page by page (issue 12, item 7; docs/reliability.md "Crash safety"):
// whatever page is zeroed, no command dies by a signal — LMDB's own assertions included.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Reliability: damaged pages")
struct DamagedPageTests {
    @Test("every page of data.mdb zeroed in turn: query, bundles and verify exit without a signal")
    func everyPageZeroed() throws {
        var files = ["Phone.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.phone"])]
        for i in 0...3_000 { files["Phone.app/file-with-a-long-name-\(i).txt"] = "" }
        let f = try BundleFixture(files)
        try f.build()
        let data = f.indexPath + "/data.mdb"
        let original = try Data(contentsOf: URL(fileURLWithPath: data))
        let pageSize = 4096
        var deaths: [String] = []
        // Pages 0 and 1 are LMDB's meta pages, checked when the index opens.
        for page in 2..<(original.count / pageSize) {
            var damaged = original
            damaged.replaceSubrange(page * pageSize..<(page + 1) * pageSize, with: Data(count: pageSize))
            try damaged.write(to: URL(fileURLWithPath: data))
            for args in [["query", "com.example.phone", "file-with-a-long-name-7", "--type", "txt"], ["bundles"],
                         ["verify", f.root]] {
                let r = try run(["timeout", "-s", "KILL", "20", bundleidxBinary] + args + ["--index", f.indexPath])
                if r.status >= 128 { deaths.append("page \(page), \(args[0]): status \(r.status) \(r.stderr.prefix(200))") }
            }
        }
        try original.write(to: URL(fileURLWithPath: data))
        #expect(deaths.isEmpty, "\(deaths)")
    }
}
