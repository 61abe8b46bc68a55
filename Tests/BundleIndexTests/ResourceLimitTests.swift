// Running out of something the index needs — disk space, address space — tried through the CLI
// (issue 12, docs/reliability.md "Disk full" and "Address space"): the error names what ran out,
// the exit is not a signal, and the index that was there keeps answering.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

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

@Suite("Reliability: address space")
struct AddressSpaceTests {
    /// `bundleidx ARGS --index INDEX` under an address-space limit of `gibibytes` (`prlimit --as`).
    static func limited(_ gibibytes: Int, _ index: String, _ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try run(["prlimit", "--as=\(gibibytes << 30)", "timeout", "-s", "KILL", "60", bundleidxBinary] + args + ["--index", index])
    }

    @Test("under ulimit -v 4 GB and 16 GB, build and query work: the map is sized to what the limit leaves")
    func buildAndQueryUnderLimit() throws {
        let f = try BundleFixture(manyFileBundles(count: 3, files: 50))
        for gibibytes in [4, 16] {
            try? FileManager.default.removeItem(atPath: f.indexPath)
            for _ in 0..<2 {   // a new index, then a rebuild of an existing one
                let built = try Self.limited(gibibytes, f.indexPath, ["build", f.root])
                #expect(built.status == 0, "\(gibibytes) GiB: \(built.status) \(built.stderr)")
            }
            let query = try Self.limited(gibibytes, f.indexPath, ["query", "com.example.app2", "a-resource-with-a-rather-long-name-9",
                                                                   "--type", "png"])
            #expect(query.status == 0 && query.stdout.hasSuffix("-9.png\n"), "\(gibibytes) GiB: \(query.status) \(query.stderr)")
            let batch = try run(["prlimit", "--as=\(gibibytes << 30)", bundleidxBinary, "query", "--batch", "--index", f.indexPath],
                                input: #"{"bundle":"com.example.app1","op":"identifier"}"# + "\n")
            #expect(batch.status == 0 && batch.stdout == "\"com.example.app1\"\n", "\(batch.stderr)")
        }
    }

    @Test("an index larger than the limit allows to map: the error names the limit, exit 3, no signal")
    func indexLargerThanTheLimit() throws {
        let f = try BundleFixture(manyFileBundles(count: 1, files: 5))
        try f.build()
        // A data file of 8 GiB (sparse): a reader must map all of it, which 4 GiB cannot hold.
        #expect(truncate(f.indexPath + "/data.mdb", 8 << 30) == 0)
        for args in [["query", "com.example.app0", "x"], ["build", f.root]] {
            let r = try Self.limited(4, f.indexPath, args)
            #expect(r.status == 3, "\(args): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("Cannot allocate memory") && r.stderr.contains("address-space limit (ulimit -v) of 4096 MiB"),
                    "\(args): \(r.stderr)")
        }
        #expect(try run([bundleidxBinary, "query", "com.example.app0", "x", "--index", f.indexPath]).status == 1)
    }
}
