// What happens to watched folders themselves: touched, their mode changed, a root moved away and
// back. Each is an event about the watched folder (no entry name), which the watcher took for an
// entry "" of the folder and then indexed every bundle below it as `folder//X.app`.
import Foundation
import Glibc
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Watcher: the watched folders themselves", .serialized)
struct WatchedFoldersTests {
    static let tree: [String: String] = [
        "Apps/A.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.a"]),
        "Apps/A.app/a.png": "",
        "Apps/B.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.b"]),
        "Apps/B.app/b.png": "",
    ]

    /// The index holds exactly what is on the disk, under the right paths.
    static func expectExact(_ watch: WatcherHarness, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let differences = try IndexVerifier.verify(indexPath: watch.indexPath, roots: [watch.root])
        #expect(differences.isEmpty, "\(differences.prefix(3))", sourceLocation: sourceLocation)
        let paths = try IndexReader(path: watch.indexPath).bundles().map(\.bundlePath)
        #expect(!paths.contains { $0.contains("//") }, "\(paths)", sourceLocation: sourceLocation)
    }

    static func touch(_ path: String) {
        var times = [timespec(tv_sec: time(nil) - 10, tv_nsec: 0), timespec(tv_sec: time(nil) - 10, tv_nsec: 0)]
        utimensat(AT_FDCWD, path, &times, 0)
    }

    @Test("folders touched and their mode changed, the root among them: every bundle keeps its path; later changes are seen")
    func touchedFolders() throws {
        let watch = try WatcherHarness(Self.tree)
        defer { watch.stop() }
        for folder in ["", "/Apps", "/Apps/A.app", "/Apps/B.app"] { Self.touch(watch.root + folder) }
        chmod(watch.root + "/Apps/B.app", 0o700)
        chmod(watch.root + "/Apps/B.app", 0o755)
        try watch.sync()
        try Self.expectExact(watch)
        // A bundle added and one removed after that are found at their paths.
        let added = watch.root + "/Apps/New.bundle"
        try FileManager.default.createDirectory(atPath: added, withIntermediateDirectories: true)
        try Data(infoPlist(["CFBundleIdentifier": "org.example.new"]).utf8).write(to: URL(fileURLWithPath: added + "/Info.plist"))
        try FileManager.default.removeItem(atPath: watch.root + "/Apps/B.app")
        try watch.sync()
        try Self.expectExact(watch)
        #expect(try watch.bundle("Apps/New.bundle") != nil)
        #expect(try watch.bundle("Apps/B.app") == nil)
        #expect(try IndexReader(path: watch.indexPath).bundle(identifier: "org.example.new", context: .foundationLinux)?.bundlePath
                == added)
    }

    @Test("a root moved away and back: its bundles go while it is away, and what it holds when it is back is indexed")
    func rootMovedAwayAndBack() throws {
        let options = WatcherHarness.quickRetry
        let watch = try WatcherHarness(Self.tree, options: options)
        defer { watch.stop() }
        let away = watch.root + "-away"
        #expect(rename(watch.root, away) == 0)
        FileManager.default.createFile(atPath: away + "/Apps/A.app/during.png", contents: nil)
        try FileManager.default.removeItem(atPath: away + "/Apps/B.app")
        // While it is away its bundles are gone from the index (the watcher needs a moment).
        var gone = false
        for _ in 0..<100 where !gone {
            usleep(50_000)
            gone = try watch.bundle("Apps/A.app") == nil
        }
        #expect(gone, "the root's bundles are removed while it is away")
        #expect(rename(away, watch.root) == 0)
        // Back: watched again at the next retry, then everything in it looked at again.
        var synced = false
        for _ in 0..<40 where !synced { synced = (try? IndexWatcher.sync(root: watch.root, timeout: 0.5)) != nil }
        #expect(synced, "a sync goes through once the root is watched again")
        try Self.expectExact(watch)
        #expect(try watch.bundle("Apps/A.app")?.path(forResource: "during", ofType: "png") != nil)
        #expect(try watch.bundle("Apps/B.app") == nil)
    }
}

@Suite("WatchedTree: the folders at and below a path")
struct WatchedTreePathsTests {
    @Test("forget and rename take a folder and those below it, not its neighbours that share its bytes")
    func neighboursSharingBytes() throws {
        let base = makeTempDirectory(prefix: "watched-tree")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let names = ["a", "a/b", "a/b/c", "a-x", "a-x/d", "a.y", "ab", "a/b-c"]
        for n in names { try FileManager.default.createDirectory(atPath: base + "/" + n, withIntermediateDirectories: true) }
        let tree = WatchedTree(inotify: try Inotify())
        for n in names { #expect(tree.watch(base + "/" + n)) }
        tree.forget(base + "/a/b")
        #expect(tree.count == 6, "a/b and a/b/c forgotten, a/b-c kept")
        try FileManager.default.moveItem(atPath: base + "/a-x", toPath: base + "/a-z")
        tree.rename(base + "/a-x", to: base + "/a-z")
        tree.forget(base + "/a-x")
        #expect(tree.count == 6, "nothing is watched under the old name any more")
        tree.forget(base + "/a-z")
        #expect(tree.count == 4, "a-z and a-z/d were watched under the new name")
        tree.forget(base + "/a")
        #expect(tree.count == 2, "a.y and ab remain")
        #expect(!tree.watch(base + "/a.y") && !tree.watch(base + "/ab"), "still watched")
        #expect(tree.count == 2)
    }
}
