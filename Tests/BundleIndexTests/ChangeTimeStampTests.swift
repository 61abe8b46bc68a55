// What an incremental build sees only because its stamps hold change times (`st_ctim`) and stamp
// the links and unreadable folders a directory's own time does not cover (docs/scanning.md,
// "Incremental builds"). Each case ends with the index a fresh full build writes.
import Foundation
import Glibc
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Incremental build: changes only a change time shows", .serialized)
struct ChangeTimeStampTests {
    /// Sets the access and modification times of `root` and everything below it to `time`, as
    /// `tar x`, `cp -p` or `touch -r` leave them; links keep their own.
    static func setTimes(under root: String, to time: Int) {
        var paths = [root]
        paths += ((try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? []).map { root + "/" + $0 }
        // Deepest first: setting a folder's time before its entries' would not change it, but
        // the order keeps the intent plain.
        for path in paths.reversed() {
            var times = [timespec(tv_sec: time, tv_nsec: 0), timespec(tv_sec: time, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0, "\(path)")
        }
    }

    /// Exchanges the folders `a` and `b` of `t` by three renames (`mv a t; mv b a; mv t b`).
    static func exchange(_ t: IncrementalBuildTests.Tree, _ a: String, _ b: String) throws {
        try t.move(a, "exchanging")
        try t.move(b, a)
        try t.move("exchanging", b)
    }

    static let app = [
        "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "a", "CFBundleDevelopmentRegion": "en"]),
        "A.app/en.lproj/Localizable.strings": "\"hi\" = \"Hello\";",
        "A.app/Images/icon.png": "png",
    ]

    @Test("files and a folder changed with their old times put back (cp -p, rsync -t, tar x) are read again")
    func oldTimesPutBack() throws {
        let t = try IncrementalBuildTests.Tree(Self.app, links: [:])
        let oldTime = time(nil) - 7200
        Self.setTimes(under: t.root, to: oldTime)
        t.settle()
        _ = try t.fixture.build()
        // The same size, other content; a file added to Images; then every time as it was.
        try t.rewrite("A.app/en.lproj/Localizable.strings", "\"hi\" = \"Howdy\";")
        try t.fixture.add(["A.app/Images/new.png": "png"])
        Self.setTimes(under: t.root, to: oldTime)
        try IncrementalBuildTests.buildAndCompare(t, read: 1, unchanged: 0)
        let bundle = try t.fixture.bundle("A.app")
        #expect(try bundle.localizedString(forKey: "hi", value: nil, table: nil) == "Howdy")
        #expect(try bundle.path(forResource: "new", ofType: "png", inDirectory: "Images") != nil)
    }

    @Test("two folders of bundles unpacked with the same times and then exchanged by renames are read again")
    func twinsExchanged() throws {
        let pastTime = time(nil) - 7200
        let t = try IncrementalBuildTests.Tree([
            "X/N.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.x"]),
            "X/N.bundle/x.png": "x",
        ], links: [:])
        Self.setTimes(under: t.root + "/X", to: pastTime)
        // The second tree is unpacked later, with the first one's times: only the change times
        // of the two differ.
        t.settle()
        try t.fixture.add([
            "Y/N.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.y"]),
            "Y/N.bundle/y.png": "y",
        ])
        Self.setTimes(under: t.root + "/Y", to: pastTime)
        t.settle()
        _ = try t.fixture.build()
        try Self.exchange(t, "X", "Y")
        try IncrementalBuildTests.buildAndCompare(t, read: 2, unchanged: 0)
        let x = try t.fixture.bundle("X/N.bundle")
        #expect(try x.path(forResource: "y", ofType: "png") != nil)
        #expect(try x.path(forResource: "x", ofType: "png") == nil)
    }

    /// Writes `first` and `second` (relative path → content), two trees alike in shape, again
    /// until every folder and file of the two has the same change time as its counterpart: both
    /// written within one tick of the file system's clock, as one `tar x` of a small archive
    /// writes them. Only their inode numbers then tell them apart. Plain system calls: asking a
    /// folder's times (FileManager does) makes the kernel give its next change a finer time.
    /// Best effort, and whether it managed is returned: on a loaded machine other processes
    /// asking file times keep the kernel handing out finer times (multigrain timestamps), and
    /// then the change times tell the trees apart too. The tests assert their outcome either
    /// way; `inodeCompared` and `inodesWhereNeeded` hold the inode check itself.
    @discardableResult
    static func writeTwins(_ t: IncrementalBuildTests.Tree, _ first: [String: String], _ second: [String: String],
                           tops: [String]) throws -> Bool {
        func write(_ files: [String: String]) {
            for (relative, content) in files.sorted(by: { $0.key < $1.key }) {
                var folder = t.root
                for component in relative.split(separator: "/").dropLast() {
                    folder += "/" + component
                    mkdir(folder, 0o755)
                }
                let fd = open(t.root + "/" + relative, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0o644)
                _ = content.utf8CString.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count - 1) }
                close(fd)
            }
        }
        func times(_ top: String) -> [UInt64] {
            let root = t.root + "/" + top
            let paths = [root] + ((try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? []).sorted().map { root + "/" + $0 }
            return paths.map { path in
                var st = stat()
                return lstat(path, &st) == 0 ? FileSystem.changeTime(st) : 0
            }
        }
        for _ in 0..<30 {
            for top in tops { try? FileManager.default.removeItem(atPath: t.root + "/" + top) }
            write(first)
            write(second)
            if times(tops[0]) == times(tops[1]) { return true }
        }
        return false
    }

    @Test("a kept inode number is compared: the same change time under another inode does not match")
    func inodeCompared() throws {
        let t = try IncrementalBuildTests.Tree(Self.app, links: [:])
        let folder = try #require(BundleFolder(t.root + "/A.app"))
        var st = stat()
        #expect(lstat(t.root + "/A.app/Images", &st) == 0)
        let time = FileSystem.changeTime(st), inode = UInt64(st.st_ino)
        #expect(folder.matches("Images", time, inode: inode))
        #expect(folder.matches("Images", time, inode: 0), "0: not compared")
        #expect(!folder.matches("Images", time, inode: inode + 1))
        #expect(!folder.matches("Images", time + 1, inode: inode))
    }

    @Test("inode numbers are kept for the root, a linked walked tree and folders links may lead out to; not for the others")
    func inodesWhereNeeded() throws {
        let t = try IncrementalBuildTests.Tree(Self.app.merging([
            "Shared/W1/one.png": "1",
            "F.framework/Versions/A/Resources/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.f"]),
            "F.framework/Versions/A/Resources/en.lproj/f.strings": "",
            "C.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.c"]),
            "C.app/Contents/Versions/A/Resources/en.lproj/c.strings": "",
        ]) { $1 }, links: ["A.app/More": "../Shared/W1", "F.framework/Versions/Current": "A",
                          "F.framework/Resources": "Versions/Current/Resources", "C.app/Contents/Resources": "Versions/A/Resources"])
        _ = try t.fixture.build()
        let store = try IndexStore.openForReading(path: t.fixture.indexPath)
        let kept: [String: Set<String>] = try store.read { snap in
            var out: [String: Set<String>] = [:]
            for b in try snap.bundles(under: "/") {
                out[PathText.lastComponent(b.path)] = Set(try snap.directoryRecords(bundle: b.id).filter { $0.inode != 0 }.map(\.path))
            }
            return out
        }
        #expect(kept["A.app"] == ["", "More"], "the root; More leads out of the bundle; Images is a plain folder")
        #expect(kept["F.framework"] == [""], "Resources and Versions/Current stay in the bundle: \(kept["F.framework"] ?? [])")
        #expect(kept["C.app"] == ["Contents/Resources"], "the walked tree's top is a link; en.lproj is a plain folder of it")
    }

    @Test("two folders of bundles written within one clock tick and exchanged by renames: the bundles' inodes tell")
    func sameTickTwinsExchanged() throws {
        let t = try IncrementalBuildTests.Tree(Self.app, links: [:])
        try Self.writeTwins(t, ["X/N.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.x"]),
                                "X/N.bundle/x.png": "x"],
                            ["Y/N.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.y"]),
                             "Y/N.bundle/y.png": "y"], tops: ["X", "Y"])
        t.settle()
        _ = try t.fixture.build()
        try Self.exchange(t, "X", "Y")
        try IncrementalBuildTests.buildAndCompare(t, read: 2, unchanged: 1)
        #expect(try t.fixture.bundle("X/N.bundle").path(forResource: "y", ofType: "png") != nil)
    }

    @Test("a link out of a bundle whose target's own link is turned to a folder written within the same clock tick")
    func linkBeyondTheBundleRetargeted() throws {
        // A.app/More leads to Shared/current, which leads to one of two folders alike to the
        // change time: what the bundle indexes under More changes, and no folder it stamps does.
        let t = try IncrementalBuildTests.Tree(Self.app, links: [:])
        try Self.writeTwins(t, ["Shared/W1/one.png": "1"], ["Shared/W2/two.png": "2"], tops: ["Shared/W1", "Shared/W2"])
        try t.fixture.add([:], links: ["Shared/current": "W1", "A.app/More": "../Shared/current"])
        t.settle()
        _ = try t.fixture.build()
        #expect(try t.fixture.bundle("A.app").path(forResource: "one", ofType: "png", inDirectory: "More") != nil)
        // As a package manager does: a new link renamed over the old one.
        let shared = t.root + "/Shared"
        #expect(symlink("W2", shared + "/next") == 0)
        #expect(rename(shared + "/next", shared + "/current") == 0)
        try IncrementalBuildTests.buildAndCompare(t, read: 1, unchanged: 0)
        let bundle = try t.fixture.bundle("A.app")
        #expect(try bundle.path(forResource: "two", ofType: "png", inDirectory: "More") != nil)
        #expect(try bundle.path(forResource: "one", ofType: "png", inDirectory: "More") == nil)
    }

    @Test("a link that dangled and one that led to a file, now leading to folders, are followed")
    func linksThatBecomeFolders() throws {
        let t = try IncrementalBuildTests.Tree(Self.app.merging(["Extra/readme.txt": "file"]) { $1 },
                                               links: ["A.app/More": "../Elsewhere", "A.app/Docs": "../Extra/readme.txt"])
        _ = try t.fixture.build()
        #expect(try t.fixture.bundle("A.app").path(forResource: "Docs", ofType: nil) != nil, "a link to a file is a resource")
        try t.remove("Extra/readme.txt")
        try t.fixture.add(["Elsewhere/more.png": "png", "Extra/readme.txt/page.png": "png"])
        try IncrementalBuildTests.buildAndCompare(t, read: 1, unchanged: 0)
        let bundle = try t.fixture.bundle("A.app")
        #expect(try bundle.path(forResource: "more", ofType: "png", inDirectory: "More") != nil)
        #expect(try bundle.path(forResource: "page", ofType: "png", inDirectory: "Docs") != nil)
    }

    @Test("a link to a file stamps the folder its target lies in: a rewritten target keeps the bundle, a replaced one does not")
    func linkToAFile() throws {
        let t = try IncrementalBuildTests.Tree(Self.app.merging(["Shared/logo.png": "png", "Shared/mark.png": "png"]) { $1 },
                                               links: ["A.app/logo.png": "../Shared/logo.png", "A.app/mark.png": "../Shared/mark.png",
                                                       "A.app/alias.png": "logo.png"])
        _ = try t.fixture.build()
        try IncrementalBuildTests.buildAndCompare(t, read: 0, unchanged: 1)
        // Two links into one folder: one stamp. A link to a name in its own folder: none.
        let store = try IndexStore.openForReading(path: t.fixture.indexPath)
        let stamps = try store.read { try #require(try $0.bundleStamps(path: t.root + "/A.app")).stamps.map(\.path) }
        #expect(stamps.filter { $0.contains("Shared") } == ["../Shared"], "\(stamps)")
        #expect(!stamps.contains("alias.png") && !stamps.contains("logo.png"), "\(stamps)")
        try t.rewrite("Shared/logo.png", "PNG")
        try IncrementalBuildTests.buildAndCompare(t, read: 0, unchanged: 1)
        try t.remove("Shared/mark.png")
        try t.fixture.add(["Shared/mark.png/inner.png": "png"])
        try IncrementalBuildTests.buildAndCompare(t, read: 1, unchanged: 0)
        #expect(try t.fixture.bundle("A.app").path(forResource: "inner", ofType: "png", inDirectory: "mark.png") != nil)
    }
}
