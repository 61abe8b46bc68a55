// Running out of something the index needs — disk space, address space — tried through the CLI
// (issue 12, docs/reliability.md "Disk full" and "Address space"): the error names what ran out,
// the exit is not a signal, and the index that was there keeps answering.
import Foundation
import Testing
@testable import BundleIndex

/// Root may mount a tmpfs; everybody else skips the tests that need one (said in the skip).
let runsAsRoot = geteuid() == 0

/// A tmpfs of `kilobytes` mounted on a new folder, unmounted (and the folder removed) by `body`'s end.
func withTinyFileSystem<T>(kilobytes: Int, _ body: (String) throws -> T) throws -> T {
    let mountPoint = makeTempDirectory(prefix: "tmpfs")
    defer { try? FileManager.default.removeItem(atPath: mountPoint) }
    let mounted = try run(["mount", "-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", mountPoint])
    try #require(mounted.status == 0, "mount: \(mounted.stderr)")
    defer { _ = try? run(["umount", mountPoint]) }
    return try body(mountPoint)
}

/// `count` bundles of `files` empty files with long names: an index of a few hundred KiB.
func manyFileBundles(count: Int, files: Int) -> [String: String] {
    var tree: [String: String] = [:]
    for b in 0..<count {
        tree["App\(b).app/Info.plist"] = infoPlist(["CFBundleIdentifier": "com.example.app\(b)"])
        for i in 0..<files { tree["App\(b).app/a-resource-with-a-rather-long-name-\(i).png"] = "" }
    }
    return tree
}

@Suite("Reliability: disk full", .enabled(if: runsAsRoot, "mounting a tmpfs needs root"))
struct DiskFullTests {
    @Test("a build into a full file system says No space left on device, exits 3, and the old index answers")
    func buildIntoFullDisk() throws {
        let f = try BundleFixture(manyFileBundles(count: 40, files: 300))
        try withTinyFileSystem(kilobytes: 256) { fs in
            let index = fs + "/index"
            let small = try run([bundleidxBinary, "build", f.root + "/App0.app", "--index", index])
            #expect(small.status == 0, "\(small.stderr)")
            let full = try run([bundleidxBinary, "build", f.root, "--index", index])
            #expect(full.status == 3, "\(full.status) \(full.stderr)")
            #expect(full.stderr.contains("No space left on device"), "\(full.stderr)")
            #expect(!full.stderr.contains("Input/output error"), "\(full.stderr)")
            let query = try run([bundleidxBinary, "query", "com.example.app0", "a-resource-with-a-rather-long-name-7",
                                 "--type", "png", "--index", index])
            #expect(query.status == 0 && query.stdout.hasSuffix("App0.app/a-resource-with-a-rather-long-name-7.png\n"),
                    "\(query.status) \(query.stderr)")
            #expect(try run([bundleidxBinary, "query", "com.example.app1", "x", "--index", index]).status == 1)

            // A new index on the full file system: its lock file is mapped by LMDB, which used to
            // die with SIGBUS writing a page the file system could not give.
            let fresh = try run([bundleidxBinary, "build", f.root + "/App0.app", "--index", fs + "/second"])
            #expect(fresh.status == 3 && fresh.stderr.contains("No space left on device"), "\(fresh.status) \(fresh.stderr)")
        }
    }
}
