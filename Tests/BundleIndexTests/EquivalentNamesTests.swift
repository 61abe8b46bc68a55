// "é" as one scalar (U+00E9) and as "e" with a combining accent (U+0065 U+0301) are one name to
// Swift's `String` (equal, hashed alike, each a prefix of the other's extensions) and two names
// to the file system. A build must keep such folders, bundles and roots apart: what it compares,
// keys or hashes by path, it compares, keys or hashes by bytes; so does a lookup.
import Foundation
import Glibc
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Names one to Swift, two on the disk: build, watcher, lookups", .serialized)
struct EquivalentNamesTests {
    static let composed = "Caf\u{e9}"
    static let decomposed = "Cafe\u{301}"

    /// Writes a file at `relative` below `root`, making its folders, by the path's exact bytes
    /// (Glibc, no path conversion).
    static func write(_ relative: String, in root: String) {
        var folder = root
        for component in PathText.components(relative, omittingEmpty: true).dropLast() {
            folder += "/" + component
            mkdir(folder, 0o755)
        }
        let fd = open(root + "/" + relative, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0, "cannot create \(relative)")
        _ = Glibc.write(fd, "x", 1)
        close(fd)
    }

    /// A temporary root with files written by their exact bytes.
    final class Disk {
        let root = makeTempDirectory(prefix: "equivalent-names")
        let index: String
        init() { index = root + "-index" }
        deinit {
            try? FileManager.default.removeItem(atPath: root)
            try? FileManager.default.removeItem(atPath: index)
        }

        func write(_ relative: String) { EquivalentNamesTests.write(relative, in: root) }

        /// Waits until what was written since the last call is old enough for a build to trust
        /// its stamps (`waitUntilSettled`).
        func settle() { waitUntilSettled() }

        func names(in relative: String) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: root + "/" + relative)) ?? []).sorted(by: byteOrder)
        }

        func bundle(_ relative: String) throws -> IndexedBundle? {
            try IndexReader(path: index).bundle(atPath: root + "/" + relative, context: .foundationLinux)
        }

        func found(_ bundle: String, _ name: String, _ type: String) throws -> String? {
            try self.bundle(bundle)?.resource(named: name, ofType: type)?.relativePath
        }
    }

    @Test("the test writes two folders: Swift's String takes their names for one")
    func twoFolders() {
        let disk = Disk()
        disk.write(Self.composed + "/a")
        disk.write(Self.decomposed + "/b")
        #expect(disk.names(in: "").count == 2)
        #expect(Self.composed == Self.decomposed && !sameBytes(Self.composed, Self.decomposed))
    }

    @Test("two sibling folders, a bundle in each: each bundle is indexed with its own files")
    func siblingFolders() throws {
        let disk = Disk()
        disk.write(Self.decomposed + "/A.app/Resources/x.png")
        disk.write(Self.composed + "/A.app/Resources/y.png")
        let summary = try IndexBuilder.build(roots: [disk.root], indexPath: disk.index)
        #expect(summary.bundles == 2)
        #expect(try disk.found(Self.decomposed + "/A.app", "x", "png") == "Resources/x.png")
        #expect(try disk.found(Self.decomposed + "/A.app", "y", "png") == nil)
        #expect(try disk.found(Self.composed + "/A.app", "y", "png") == "Resources/y.png")
        #expect(try disk.found(Self.composed + "/A.app", "x", "png") == nil)
        #expect(try IndexVerifier.verify(indexPath: disk.index).isEmpty)
    }

    @Test("two sibling bundles: a file added to the second is found by the incremental build")
    func siblingBundlesIncremental() throws {
        let disk = Disk()
        disk.write("Apps/\(Self.decomposed).app/Resources/x.png")
        disk.write("Apps/\(Self.composed).app/Resources/y.png")
        disk.settle()
        #expect(try IndexBuilder.build(roots: [disk.root], indexPath: disk.index).bundles == 2)
        disk.write("Apps/\(Self.composed).app/Resources/z.png")
        disk.settle()
        let summary = try IndexBuilder.build(roots: [disk.root], indexPath: disk.index)
        #expect(summary.bundlesRead == 1 && summary.bundlesUnchanged == 1)
        #expect(try disk.found("Apps/\(Self.composed).app", "z", "png") == "Resources/z.png")
        #expect(try disk.found("Apps/\(Self.decomposed).app", "z", "png") == nil)
        #expect(try IndexVerifier.verify(indexPath: disk.index).isEmpty)
    }

    @Test("one bundle with two such folders: both are listed, each with its own files")
    func foldersInOneBundle() throws {
        let disk = Disk()
        disk.write("A.app/Resources/\(Self.decomposed)/x.png")
        disk.write("A.app/Resources/\(Self.composed)/y.png")
        try IndexBuilder.build(roots: [disk.root], indexPath: disk.index)
        let bundle = try #require(try disk.bundle("A.app"))
        let x = try bundle.resource(named: "x", ofType: "png", inDirectory: Self.decomposed)?.relativePath
        let y = try bundle.resource(named: "y", ofType: "png", inDirectory: Self.composed)?.relativePath
        #expect(x.map { sameBytes($0, "Resources/\(Self.decomposed)/x.png") } == true)
        #expect(y.map { sameBytes($0, "Resources/\(Self.composed)/y.png") } == true)
        #expect(try bundle.resource(named: "y", ofType: "png", inDirectory: Self.decomposed) == nil)
        #expect(try IndexVerifier.verify(indexPath: disk.index).isEmpty)
    }

    @Test("two roots: building the second keeps the bundles of the first")
    func twoRoots() throws {
        let disk = Disk()
        disk.write("\(Self.decomposed)/A.app/Resources/x.png")
        disk.write("\(Self.composed)/B.app/Resources/y.png")
        try IndexBuilder.build(roots: [disk.root + "/" + Self.decomposed], indexPath: disk.index)
        let summary = try IndexBuilder.build(roots: [disk.root + "/" + Self.composed], indexPath: disk.index)
        #expect(summary.bundlesRemoved == 0)
        let roots = try IndexStore.openForReading(path: disk.index).read { try $0.roots() }
        #expect(roots.count == 2, "both roots are kept for later builds and the watcher")
        #expect(try disk.found("\(Self.decomposed)/A.app", "x", "png") == "Resources/x.png")
        #expect(try disk.found("\(Self.composed)/B.app", "y", "png") == "Resources/y.png")
    }

    @Test("a vanished bundle beside one of the same name to Swift is removed")
    func vanishedSibling() throws {
        let disk = Disk()
        disk.write("Apps/\(Self.decomposed).app/Resources/x.png")
        disk.write("Apps/\(Self.composed).app/Resources/y.png")
        try IndexBuilder.build(roots: [disk.root], indexPath: disk.index)
        try FileManager.default.removeItem(atPath: disk.root + "/Apps/\(Self.composed).app")
        let summary = try IndexBuilder.build(roots: [disk.root], indexPath: disk.index)
        #expect(summary.bundles == 1 && summary.bundlesRemoved == 1)
        #expect(try disk.bundle("Apps/\(Self.composed).app") == nil)
        #expect(try disk.bundle("Apps/\(Self.decomposed).app") != nil)
    }

    @Test("the watcher keeps two such bundles apart: its catch-up, then a file added to the second")
    func watcher() throws {
        let decomposed = "Apps/\(Self.decomposed).app", composed = "Apps/\(Self.composed).app"
        // The catch-up keyed the indexed bundles by `String` and trapped on the two paths.
        let watch = try WatcherHarness(prepare: { root, index in
            Self.write(decomposed + "/Resources/x.png", in: root)
            Self.write(composed + "/Resources/y.png", in: root)
            try IndexBuilder.build(roots: [root], indexPath: index)
        })
        defer { watch.stop() }
        Self.write(composed + "/Resources/z.png", in: watch.root)
        try watch.sync()
        #expect(try watch.bundle(composed)?.resource(named: "z", ofType: "png")?.relativePath == "Resources/z.png")
        #expect(try watch.bundle(composed)?.resource(named: "y", ofType: "png")?.relativePath == "Resources/y.png")
        #expect(try watch.bundle(decomposed)?.resource(named: "z", ofType: "png") == nil)
        #expect(try watch.bundle(decomposed)?.resource(named: "x", ofType: "png")?.relativePath == "Resources/x.png")
        try FileManager.default.removeItem(atPath: watch.root + "/" + composed)
        try watch.sync()
        #expect(try watch.bundle(composed) == nil)
        #expect(try watch.bundle(decomposed) != nil)
    }

    @Test("a subdirectory that climbs out of one twin and through the other: only a folder that exists is climbed out of")
    func climbingThroughTwins() throws {
        let disk = Disk()
        disk.write("A.app/Resources/\(Self.decomposed)/in.png")
        disk.write("A.app/Resources/x.png")
        try IndexBuilder.build(roots: [disk.root], indexPath: disk.index)
        let bundle = try #require(try disk.bundle("A.app"))
        // The kernel resolves `d/..` only when d is a folder: the decomposed one is, the composed one is not.
        #expect(try bundle.resource(named: "x", ofType: "png", inDirectory: "\(Self.decomposed)/..")?.relativePath != nil)
        #expect(try bundle.resource(named: "x", ofType: "png", inDirectory: "\(Self.composed)/..") == nil)
        #expect(try bundle.resource(named: "x", ofType: "png", inDirectory: "\(Self.decomposed)/../\(Self.composed)/..") == nil)
    }

    @Test("an identifier respelled only in how its é is written: the new spelling is indexed, the old one removed")
    func identifierRespelled() throws {
        let disk = Disk()
        func declare(_ identifier: String) throws {
            let plist = try PropertyListSerialization.data(fromPropertyList: ["CFBundleIdentifier": identifier], format: .xml, options: 0)
            try plist.write(to: URL(fileURLWithPath: disk.root + "/App.app/Info.plist"))
        }
        disk.write("App.app/x.png")   // a flat bundle: Info.plist at its root is read
        try declare("org.example.caf\u{e9}")
        disk.settle()
        try IndexBuilder.build(roots: [disk.root], indexPath: disk.index)
        try declare("org.example.cafe\u{301}")
        disk.settle()
        #expect(try IndexBuilder.build(roots: [disk.root], indexPath: disk.index).bundlesRead == 1)
        let reader = try IndexReader(path: disk.index)
        let found = try reader.bundle(identifier: "org.example.cafe\u{301}", context: .foundationLinux)
        #expect(found.map { sameBytes($0.bundlePath, disk.root + "/App.app") } == true)
        #expect(try reader.bundle(identifier: "org.example.caf\u{e9}", context: .foundationLinux) == nil)
        #expect(try IndexVerifier.verify(indexPath: disk.index).isEmpty)
    }

    @Test("a bundle opened through a link whose name is its twin's: the link is followed")
    func linkNamedLikeItsTarget() throws {
        let disk = Disk()
        disk.write("\(Self.decomposed).app/Resources/x.png")
        #expect(symlink("\(Self.decomposed).app", disk.root + "/\(Self.composed).app") == 0)
        try IndexBuilder.build(roots: [disk.root], indexPath: disk.index)
        #expect(try disk.found("\(Self.composed).app", "x", "png") == "Resources/x.png")
    }
}
