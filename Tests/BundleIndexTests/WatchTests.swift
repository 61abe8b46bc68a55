// The watcher keeps the index exact: one test per kind of change, each asserting after `sync`.
import Foundation
import Logging
import Testing
@testable import BundleIndex
@testable import BundleIndexCore
import BundleIndexFoundation

@Suite("Watcher", .serialized, .tags(.slow), .enabled(if: TestPlan.runsSlowSuites, "quick run (tools/test.sh --quick)"))
struct WatchTests {
    static let app = [
        "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "a", "CFBundleDevelopmentRegion": "en"]),
        "A.app/icon.png": "", "A.app/en.lproj/Localizable.strings": "", "A.app/Images/bg.png": "",
    ]

    @Test("files created, rewritten and deleted")
    func files() throws {
        let h = try WatcherHarness(Self.app)
        defer { h.stop() }
        try h.write("A.app/new.png")
        try h.write("A.app/Images/deep/er/x.png")
        try h.sync()
        #expect(try h.bundle("A.app")?.rel("new", "png") == "new.png")
        #expect(try h.bundle("A.app")?.rel("x", "png", dir: "Images/deep/er") == "Images/deep/er/x.png")
        try h.remove("A.app/new.png")
        try h.sync()
        #expect(try h.bundle("A.app")?.rel("new", "png") == nil)
        #expect(try h.verify() == [])
    }

    @Test("a variant created and deleted: the folder's record lists the names variants answer, and the lookup follows")
    func variantCreatedAndDeleted() throws {
        // Format 13: a folder's record answers from its listing and its variant names, so the
        // watcher must write the variant name with the variant, and drop it again.
        let h = try WatcherHarness(Self.app)
        defer { h.stop() }
        #expect(try h.bundle("A.app")?.rel("logo", "png") == nil)
        try h.write("A.app/logo.png")
        try h.sync()
        #expect(try h.bundle("A.app")?.rel("logo", "png") == "logo.png")
        try h.write("A.app/logo-linux.png")
        try h.sync()
        #expect(try h.bundle("A.app")?.rel("logo", "png") == "logo-linux.png")
        #expect(try h.bundle("A.app")?.rel("logo-linux", "png") == "logo-linux.png")
        try h.remove("A.app/logo-linux.png")
        try h.sync()
        #expect(try h.bundle("A.app")?.rel("logo", "png") == "logo.png")
        #expect(try h.verify() == [])
    }

    @Test("Info.plist and InfoPlist.strings rewrites update identifier, region and localized values")
    func infoRewrites() throws {
        let h = try WatcherHarness(Self.app)
        defer { h.stop() }
        try h.write("A.app/Info.plist", infoPlist(["CFBundleIdentifier": "a2", "CFBundleDevelopmentRegion": "fr"]))
        try h.write("A.app/fr.lproj/InfoPlist.strings", "\"CFBundleName\" = \"Nom\";\n")
        try h.sync()
        let b = try #require(try h.bundle("A.app"))
        #expect(b.bundleIdentifier == "a2" && b.developmentLocalization == "fr")
        // The lproj folders in readdir order, as Foundation lists the same folder.
        #expect(b.localizations == Bundle(path: h.root + "/A.app")?.localizations && b.localizations.sorted() == ["en", "fr"])
        #expect(try b.object(forInfoDictionaryKey: "CFBundleName") == .string("Nom"))
        #expect(try IndexReader(path: h.indexPath).bundle(identifier: "a") == nil)
        #expect(try h.verify() == [])
    }

    @Test("strings tables rewritten in place, added and removed show on the next call after sync")
    func stringsTables() throws {
        let h = try WatcherHarness(Self.app)
        defer { h.stop() }
        try h.write("A.app/en.lproj/Localizable.strings", "\"hello\" = \"hello\";\n")
        try h.sync()
        let dropIn = try #require(IndexedFoundationBundle(path: h.root + "/A.app", index: h.indexPath))
        let b = try #require(try h.bundle("A.app"))
        #expect(dropIn.localizedString(forKey: "hello", value: nil, table: nil) == "hello")
        // `b` keeps the table's entries it read: "bye" below is a new key of a table used before the commit.
        #expect(try b.localizedString(forKey: "bye", value: nil, table: "Localizable") == "bye")
        // Rewritten in place, alone in its batch: the folder's listing stays, only the content changes.
        let file = try #require(fopen(h.root + "/A.app/en.lproj/Localizable.strings", "w"))
        fputs("\"hello\" = \"hi\";\n\"bye\" = \"bye now\";\n", file)
        fclose(file)
        try h.sync()
        #expect(dropIn.localizedString(forKey: "hello", value: nil, table: nil) == "hi")
        #expect(try b.localizedString(forKey: "bye", value: nil, table: "Localizable") == "bye now")
        try h.write("A.app/en.lproj/Errors.strings", "\"E1\" = \"disk full\";\n")
        try h.sync()
        #expect(dropIn.localizedString(forKey: "E1", value: nil, table: "Errors") == "disk full")
        try h.write("A.app/en.lproj/Localizable.stringsdict",
                    "<plist version=\"1.0\"><dict><key>hello</key><string>from dict</string></dict></plist>")
        try h.remove("A.app/en.lproj/Errors.strings")
        try h.sync()
        #expect(dropIn.localizedString(forKey: "hello", value: nil, table: nil) == "from dict")
        #expect(dropIn.localizedString(forKey: "E1", value: "gone", table: "Errors") == "gone")
        #expect(try h.verify() == [])
    }

    @Test("a strings table rewritten in place while no watcher ran is caught up when one starts")
    func stringsTableCatchUp() throws {
        let fixture = try BundleFixture(Self.app.merging(["A.app/en.lproj/Localizable.strings": "\"k\" = \"old\";\n"]) { $1 })
        try fixture.build()
        // In place: the folder's mtime stays, only the table's own stamp shows the change.
        let file = try #require(fopen(fixture.root + "/A.app/en.lproj/Localizable.strings", "w"))
        fputs("\"k\" = \"new\";\n", file)
        fclose(file)
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, fixture.root + "/A.app/en.lproj/Localizable.strings", &times, 0) == 0)
        let watcher = try IndexWatcher(roots: [fixture.root], indexPath: fixture.indexPath,
                                       logger: Logger(label: "test.watch", factory: { _ in SwiftLogNoOpLogHandler() }))
        try watcher.catchUp()
        let b = try #require(try fixture.reader().bundle(atPath: fixture.root + "/A.app", context: .foundationLinux))
        #expect(try b.localizedString(forKey: "k", value: nil, table: nil) == "new")
        #expect(try IndexVerifier.verify(indexPath: fixture.indexPath, roots: [fixture.root]) == [])
    }

    @Test("moves within the tree, into it and out of it; lproj folders appearing")
    func moves() throws {
        let h = try WatcherHarness(Self.app)
        defer { h.stop() }
        let outside = makeTempDirectory(prefix: "outside")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try h.move("A.app/icon.png", "A.app/Images/icon.png")
        try h.move("A.app/Images", "A.app/Pictures")
        try h.write("A.app/de.lproj/only.txt")
        FileManager.default.createFile(atPath: outside + "/in.png", contents: Data())
        try FileManager.default.moveItem(atPath: outside + "/in.png", toPath: h.root + "/A.app/in.png")
        try FileManager.default.moveItem(atPath: h.root + "/A.app/en.lproj", toPath: outside + "/en.lproj")
        try h.sync()
        let b = try #require(try h.bundle("A.app"))
        #expect(try b.rel("icon", "png", dir: "Pictures") == "Pictures/icon.png")
        #expect(try b.rel("bg", "png", dir: "Images") == nil)
        #expect(try b.rel("in", "png") == "in.png")
        #expect(try b.rel("Localizable", "strings") == nil)
        #expect(b.localizations == ["de"])
        // Changes inside a directory that moved in the tree are still seen.
        try h.write("A.app/Pictures/later.png")
        try h.sync()
        #expect(try h.bundle("A.app")?.rel("later", "png", dir: "Pictures") == "Pictures/later.png")
        #expect(try h.verify() == [])
    }

    @Test("whole bundles created, renamed and removed; nested bundles too")
    func bundles() throws {
        let h = try WatcherHarness(Self.app)
        defer { h.stop() }
        try h.write("Sub/B.bundle/Info.plist", infoPlist(["CFBundleIdentifier": "b"]))
        try h.write("Sub/B.bundle/b.txt")
        try h.write("A.app/PlugIns/P.plugin/Contents/Info.plist", infoPlist(["CFBundleIdentifier": "p"]))
        try h.sync()
        let r = try IndexReader(path: h.indexPath)
        #expect(try r.bundle(identifier: "b")?.rel("b", "txt") == "b.txt")
        #expect(try r.bundle(identifier: "p") != nil)
        try h.move("Sub", "Renamed")
        try h.sync()
        #expect(try r.bundle(identifier: "b")?.bundlePath == h.root + "/Renamed/B.bundle")
        try h.remove("Renamed/B.bundle")
        try h.remove("A.app/PlugIns")
        try h.sync()
        #expect(try r.bundle(identifier: "b") == nil && r.bundle(identifier: "p") == nil)
        #expect(try h.verify() == [])
    }

    @Test("a bundle moved out of the tree and back: one opened before finds its files again (the same id)")
    func bundleMovedOutAndBack() throws {
        let h = try WatcherHarness(Self.app)
        defer { h.stop() }
        let opened = try #require(try h.bundle("A.app"))
        let away = h.root + "-away"
        try FileManager.default.moveItem(atPath: h.root + "/A.app", toPath: away)
        defer { try? FileManager.default.removeItem(atPath: away) }
        try h.sync()
        #expect(try h.bundle("A.app") == nil && opened.rel("icon", "png") == nil)
        try FileManager.default.moveItem(atPath: away, toPath: h.root + "/A.app")
        try h.sync()
        try h.write("A.app/later.png")
        try h.sync()
        #expect(try h.bundle("A.app")?.record.id == opened.record.id)
        #expect(try opened.rel("icon", "png") == "icon.png" && opened.rel("later", "png") == "later.png")
        #expect(try h.verify() == [])
    }

    @Test("a layout change: a flat bundle gaining a Resources folder")
    func layoutChange() throws {
        let h = try WatcherHarness(Self.app)
        defer { h.stop() }
        #expect(try h.bundle("A.app")?.layout == .flat)
        try h.write("A.app/Resources/r.txt")
        try h.sync()
        let b = try #require(try h.bundle("A.app"))
        #expect(b.layout == .resources)
        #expect(try b.rel("r", "txt") == "Resources/r.txt")
        #expect(try h.verify() == [])
    }

    @Test("a directory becoming a bundle by getting an Info.plist")
    func becomesBundle() throws {
        let h = try WatcherHarness(Self.app)
        defer { h.stop() }
        try h.write("Plain/x.txt")
        try h.sync()
        #expect(try h.bundle("Plain") == nil)
        try h.write("Plain/Info.plist", infoPlist(["CFBundleIdentifier": "plain"]))
        try h.sync()
        #expect(try h.bundle("Plain")?.rel("x", "txt") == "x.txt")
        #expect(try h.verify() == [])
    }

    @Test("a link out of a bundle: changes behind it rescan the bundle, in another bundle of the tree or outside every root")
    func linksOutOfABundle() throws {
        let outside = makeTempDirectory(prefix: "watch-outside")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createDirectory(atPath: outside + "/Shared", withIntermediateDirectories: true)
        let h = try WatcherHarness(["lib/Ink.app/Ink": "", "share/Ink.app/Info-gnustep.plist": "{}", "share/Ink.app/a.png": ""],
                                   links: ["lib/Ink.app/Resources": "../../share/Ink.app", "lib/Ink.app/Shared": outside + "/Shared"])
        defer { h.stop() }
        try h.write("share/Ink.app/English.lproj/b.png")
        FileManager.default.createFile(atPath: outside + "/Shared/c.png", contents: Data())
        try FileManager.default.createDirectory(atPath: outside + "/Shared/deep", withIntermediateDirectories: true)
        // The outside folder's events travel in the same inotify queue, ahead of the cookie's.
        try h.sync()
        let ink = try #require(try h.bundle("lib/Ink.app"))
        #expect(try ink.rel("b", "png") == "Resources/English.lproj/b.png")
        #expect(try ink.rel("c", "png", dir: "Shared") == "Shared/c.png")
        FileManager.default.createFile(atPath: outside + "/Shared/deep/d.png", contents: Data())
        try h.sync()
        #expect(try h.bundle("lib/Ink.app")?.rel("d", "png", dir: "Shared/deep") == "Shared/deep/d.png")
        #expect(try IndexReader(path: h.indexPath).bundle(atPath: outside + "/Shared", context: .foundationLinux) == nil,
                "nothing outside the roots is indexed on its own")
        #expect(try h.verify() == [])
    }

    @Test("a bundle the catch-up keeps unchanged still follows its link out: a change behind it rescans the bundle")
    func keptBundleLinksOut() throws {
        let outside = makeTempDirectory(prefix: "watch-outside")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        FileManager.default.createFile(atPath: outside + "/a.png", contents: Data())
        let h = try WatcherHarness(["Ink.app/Ink": "", "Ink.app/Info.plist": infoPlist([:])], links: ["Ink.app/Shared": outside],
                                   prepare: { root, index in _ = try IndexBuilder.build(roots: [root], indexPath: index) })
        defer { h.stop() }
        #expect(try h.bundle("Ink.app")?.rel("a", "png", dir: "Shared") == "Shared/a.png")
        FileManager.default.createFile(atPath: outside + "/b.png", contents: Data())
        try h.sync()
        #expect(try h.bundle("Ink.app")?.rel("b", "png", dir: "Shared") == "Shared/b.png")
        #expect(try h.verify() == [])
    }

    @Test("a link out of a bundle to a large tree: no more of it is watched than a scan takes through links")
    func linkToALargeTree() throws {
        let outside = makeTempDirectory(prefix: "watch-outside")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        for i in 0..<20 { try FileManager.default.createDirectory(atPath: outside + "/d\(i)/e", withIntermediateDirectories: true) }
        let h = try WatcherHarness(["Ink.app/Ink": "", "Ink.app/Info.plist": infoPlist([:])], links: ["Ink.app/Shared": outside],
                                   configure: { $0.linkTargetFolders = 5 })
        defer { h.stop() }
        // The root and Ink.app, five folders of the 41 behind the link (a link to / would be all
        // of them), and one for each folder on the link's way there (`/`, `/tmp`: a rename there
        // makes it lead elsewhere).
        let onTheWay = PathText.components(outside, omittingEmpty: true).count
        #expect(h.watcher.tree.count == 2 + 5 + onTheWay, "\(h.watcher.tree.count) watches")
        #expect(try h.bundle("Ink.app")?.rel("e", nil, dir: "Shared/d7") == "Shared/d7/e")
    }

    @Test("a catch-up that keeps a bundle watches where its followed links lead, not where its links not followed do")
    func keptBundleWatchesLikeAScan() throws {
        // `top -> /` holds the bundle: not followed, only stamped. A catch-up took every stamp
        // for a folder of the bundle and watched / (as far as the bound let it).
        let files = ["A.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.a"]),
                     "A.app/Contents/Resources/a.png": ""]
        var counts: [Int] = []
        for keep in [false, true] {
            let h = try WatcherHarness(files, links: ["A.app/Contents/Resources/top": "/"], configure: { $0.linkTargetFolders = 50 },
                                       prepare: { root, index in
                                           waitUntilSettled()
                                           _ = try IndexBuilder.build(roots: [root], indexPath: index)
                                           // Without the wait the catch-up reads the bundle again.
                                           if keep { waitUntilSettled() } else { try Data().write(to: URL(fileURLWithPath: root + "/A.app/Contents/Resources/b.png")) }
                                       })
            defer { h.stop() }
            counts.append(h.watcher.tree.count)
        }
        #expect(counts[0] < 10 && counts[1] == counts[0], "watches after a scan, after a catch-up that kept the bundle: \(counts)")
    }

    @Test("a link's target outside every root replaced by a rename: the new folder is watched")
    func linkTargetReplacedByRename() throws {
        let outside = makeTempDirectory(prefix: "watch-replaced")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        try FileManager.default.createDirectory(atPath: outside + "/a", withIntermediateDirectories: false)
        FileManager.default.createFile(atPath: outside + "/a/x.png", contents: nil)
        let h = try WatcherHarness(["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "org.example.a"])],
                                   links: ["A.app/Res": outside + "/a"])
        defer { h.stop() }
        try FileManager.default.moveItem(atPath: outside + "/a", toPath: outside + "/a.old")
        try FileManager.default.createDirectory(atPath: outside + "/a", withIntermediateDirectories: false)
        FileManager.default.createFile(atPath: outside + "/a/y.png", contents: nil)
        try h.sync()
        FileManager.default.createFile(atPath: outside + "/a/z.png", contents: nil)
        try h.sync()
        let a = try #require(try h.bundle("A.app"))
        #expect(try a.rels("png", dir: "Res").sorted() == ["Res/y.png", "Res/z.png"])
        #expect(try h.verify() == [])
    }

    @Test("a folder declared a bundle (build --bundle) stays one for the watcher")
    func declaredBundle() throws {
        let h = try WatcherHarness(["Plain/notes.txt": "", "Plain/Deeper/x.txt": ""], prepare: { root, index in
            _ = try IndexBuilder.build(roots: [root], bundles: [root + "/Plain"], indexPath: index)
        })
        defer { h.stop() }
        try h.write("Plain/more.txt")
        try h.write("Plain/Deeper/y.txt")
        try h.sync()
        #expect(try h.bundle("Plain")?.rels("txt").sorted() == ["more.txt", "notes.txt"])
        #expect(try h.bundle("Plain")?.rels("txt", dir: "Deeper").sorted() == ["Deeper/x.txt", "Deeper/y.txt"])
        #expect(try h.verify() == [])
    }

    @Test("attribute changes rescan the bundle")
    func attributes() throws {
        let h = try WatcherHarness(Self.app)
        defer { h.stop() }
        let before = try IndexReader(path: h.indexPath).statistics().generation
        chmod(h.root + "/A.app/Images", 0o700)
        try h.sync()
        #expect(try IndexReader(path: h.indexPath).statistics().generation > before)
        #expect(try h.verify() == [])
    }

    @Test("every batch raises the generation; sync returns only after the batch committed")
    func generations() throws {
        let h = try WatcherHarness(Self.app)
        defer { h.stop() }
        let g0 = try IndexReader(path: h.indexPath).statistics().generation
        for i in 0..<5 {
            try h.write("A.app/g\(i).txt")
            try h.sync()
            #expect(try h.bundle("A.app")?.rel("g\(i)", "txt") == "g\(i).txt")
        }
        #expect(try IndexReader(path: h.indexPath).statistics().generation >= g0 + 5)
    }

    @Test("IN_Q_OVERFLOW: events lost while the queue was full are recovered by a rescan")
    func overflow() throws {
        let pause = makeTempDirectory(prefix: "pause")
        defer { try? FileManager.default.removeItem(atPath: pause) }
        var files = Self.app
        files["A.app/Many/"] = ""   // watched from the start, so every file below queues events
        let h = try WatcherHarness(files) { $0.pauseFile = pause }
        defer { h.stop() }
        // The watcher does not read its queue while `pause` exists: more events than
        // fs.inotify.max_queued_events overflow it.
        let limit = Int(String(decoding: FileSystem.readFile("/proc/sys/fs/inotify/max_queued_events") ?? [], as: UTF8.self)
            .trimmingWhitespace()) ?? 16384
        let dir = h.root + "/A.app/Many"
        for i in 0..<(limit + 200) {
            FileManager.default.createFile(atPath: dir + "/f\(i).txt", contents: nil)
        }
        try FileManager.default.removeItem(atPath: pause)
        try h.sync()
        #expect(h.watcher.overflows >= 1)
        #expect(try h.bundle("A.app")?.rel("f7", "txt", dir: "Many") == "Many/f7.txt")
        #expect(try h.verify() == [])
    }

    @Test("watch limit reached: degraded mode rescans unwatched directories and says so")
    func degraded() throws {
        let options = WatcherHarness.quickRetry
        let h = try WatcherHarness(Self.app, options: options) { $0.tree.artificialLimit = 3 }
        defer { h.stop() }
        let stats = try IndexReader(path: h.indexPath).statistics()
        #expect(stats.watchState == "degraded")
        #expect(stats.unwatchedDirectories > 0)
        try h.write("A.app/Images/late.png")
        usleep(600_000)
        try h.sync()
        #expect(try h.bundle("A.app")?.rel("late", "png", dir: "Images") == "Images/late.png")
    }
}
