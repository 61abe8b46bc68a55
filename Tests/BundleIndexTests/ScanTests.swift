// Finding bundles and reading them, including everything a user's disk can throw at us.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Scanner")
struct ScanTests {
    @Test("nested bundles in Frameworks/, PlugIns/ and Resources/ are bundles of their own")
    func nestedBundles() throws {
        let f = try BundleFixture([
            "Host.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "host"]),
            "Host.app/Contents/Frameworks/Kit.framework/Versions/A/Resources/Info.plist": infoPlist(["CFBundleIdentifier": "kit"]),
            "Host.app/Contents/PlugIns/P.plugin/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "plug"]),
            "Host.app/Contents/Resources/Extra.bundle/x.txt": "",
            "Host.app/Contents/Resources/Main.storyboardc/Info.plist": infoPlist([:]),
        ], links: ["Host.app/Contents/Frameworks/Kit.framework/Versions/Current": "A",
                   "Host.app/Contents/Frameworks/Kit.framework/Resources": "Versions/Current/Resources"])
        try f.build()
        let paths = try f.reader().bundles().map { String($0.bundlePath.dropFirst(f.root.count + 1)) }
        #expect(paths == ["Host.app", "Host.app/Contents/Frameworks/Kit.framework", "Host.app/Contents/PlugIns/P.plugin",
                          "Host.app/Contents/Resources/Extra.bundle", "Host.app/Contents/Resources/Main.storyboardc"])
        // The parent still finds what lies inside a nested bundle under its resources.
        #expect(try f.bundle("Host.app").rel("x", "txt", dir: "Extra.bundle") == "Contents/Resources/Extra.bundle/x.txt")
        #expect(try f.bundle("Host.app/Contents/Frameworks/Kit.framework").bundleIdentifier == "kit")
    }

    @Test("broken, garbage, empty and lower-case Info.plist: bundle indexed, info empty, warning")
    func badInfoPlists() throws {
        let f = try BundleFixture([
            "Broken.app/Info.plist": "<plist><dict><key>CFBundleIdentifier</key>",
            "Garbage.app/Info.plist": String(decoding: (0..<200).map { UInt8(($0 * 37 + 11) % 256) }, as: UTF8.self),
            "Empty.app/Info.plist": "",
            "Lower.app/info.plist": infoPlist(["CFBundleIdentifier": "lower"]),
            "Good.app/Info.plist": infoPlist(["CFBundleIdentifier": "good"]),
        ])
        let summary = try f.build()
        #expect(summary.bundles == 5)
        for name in ["Broken.app", "Garbage.app", "Empty.app", "Lower.app"] {
            let b = try f.bundle(name)
            #expect(b.infoDictionary.isEmpty, "\(name)")
            #expect(b.bundleIdentifier == nil, "\(name)")
            #expect(!b.record.warnings.isEmpty, "\(name) has no warning")
        }
        #expect(try f.bundle("Good.app").record.warnings.isEmpty)
        #expect(summary.warnings.count == 4)
    }

    @Test("symlink loops do not hang; links inside the bundle and out of it are followed, as the kernel follows them")
    func symlinks() throws {
        let outside = makeTempDirectory(prefix: "outside")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        FileManager.default.createFile(atPath: outside + "/far.txt", contents: Data())
        let f = try BundleFixture(["L.app/Info.plist": infoPlist([:]), "L.app/Images/i.png": "", "L.app/sub/s.txt": ""],
                                  links: ["L.app/sub/up": "..", "L.app/sub/self": ".", "L.app/Linked": "Images",
                                          "L.app/Out": outside, "L.app/a": "b", "L.app/b": "a"])
        let summary = try f.build()
        #expect(summary.bundles == 1)
        let b = try f.bundle("L.app")
        #expect(try b.rel("i", "png", dir: "Linked") == "Linked/i.png")
        #expect(try b.rel("s", "txt", dir: "sub") == "sub/s.txt")
        #expect(try b.rel("far", "txt", dir: "Out") == "Out/far.txt", "a link out of the bundle is indexed under its own path")
        #expect(try b.rel("Out", nil) == "Out")
        #expect(try b.rel("a", nil) == "a", "a dangling link loop is still an entry")
    }

    @Test("file names that are not UTF-8 are skipped and counted")
    func nonUTF8Names() throws {
        let f = try BundleFixture(["U.app/Info.plist": infoPlist([:]), "U.app/ok.txt": ""])
        let bad = f.root + "/U.app/bad\u{FFFD}"
        var bytes = Array((f.root + "/U.app/bad").utf8)
        bytes += [0xFF, 0xFE, 0x2E, 0x74, 0x78, 0x74, 0]
        let fd = bytes.withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) { open($0, O_CREAT | O_WRONLY, 0o644) }
        }
        #expect(fd >= 0)
        close(fd)
        _ = bad
        let summary = try f.build()
        #expect(summary.skippedNames == 1)
        #expect(try f.bundle("U.app").rels("txt") == ["ok.txt"])
    }

    @Test("a folder whose entries fill the listing buffer many times is listed whole, in byte order, with each entry's kind")
    func largeFolderListing() throws {
        let root = makeTempDirectory(prefix: "large-folder")
        defer { try? FileManager.default.removeItem(atPath: root) }
        // 3 000 names of 70-odd bytes: about 270 KB of directory records, eight and more reads of
        // the 32 KiB buffer. Folders and links among them, and the names a listing leaves out.
        var expected: [String: DirectoryEntry.Flags] = [:]
        for i in 0..<3_000 {
            let name = "entry-\(i)-" + String(repeating: "é", count: i % 40) + String(repeating: "x", count: 24)
            switch i % 10 {
            case 0:
                #expect(mkdir(root + "/" + name, 0o755) == 0)
                expected[name] = .directory
            case 1:
                #expect(symlink(".", root + "/" + name) == 0)
                expected[name] = [.symlink, .symlinkToDirectory]
            case 2:
                #expect(symlink("missing", root + "/" + name) == 0)
                expected[name] = .symlink
            default:
                #expect(FileManager.default.createFile(atPath: root + "/" + name, contents: nil))
                expected[name] = []
            }
        }
        for skipped in ["._resource-fork", SyncCookie.prefix + "1"] {
            #expect(FileManager.default.createFile(atPath: root + "/" + skipped, contents: nil))
        }
        var skippedNames = 0
        let listing = try DirectoryReader.listing(root, skippedNames: &skippedNames)
        #expect(skippedNames == 0)
        #expect(listing.entries.map(\.name) == expected.keys.sorted(by: byteOrder))
        #expect(listing.entries.allSatisfy { expected[$0.name] == $0.flags })
        // What Foundation lists, less the names CF leaves out and the watcher's cookies.
        let foundation = try FileManager.default.contentsOfDirectory(atPath: root)
            .filter { !$0.hasPrefix("._") && !$0.hasPrefix(SyncCookie.prefix) }
        #expect(Set(foundation) == Set(listing.entries.map(\.name)))
        #expect(try DirectoryReader.listAll(root, skippedNames: &skippedNames).count == 3_001, "cookies are listed for the watcher")
        // Relative to an open parent, as a scan lists a bundle's folders.
        let parent = open(String(root[..<root.lastIndex(of: "/")!]), FileSystem.openPath | O_DIRECTORY | O_CLOEXEC)
        defer { close(parent) }
        let relative = try DirectoryReader.listing(PathText.lastComponent(root), in: parent, path: root, skippedNames: &skippedNames)
        #expect(relative.entries.map(\.name) == listing.entries.map(\.name))
        #expect(throws: DirectoryReadError.self) {
            try DirectoryReader.listing("nope", in: parent, path: root + "/nope", skippedNames: &skippedNames)
        }
    }

    @Test("a root that is not a directory is an input error")
    func badRoot() throws {
        let f = try BundleFixture(["x.txt": ""])
        #expect(throws: BundleIndexError.self) { try IndexBuilder.build(roots: [f.root + "/nope"], indexPath: f.indexPath) }
        #expect(throws: BundleIndexError.self) { try IndexBuilder.build(roots: [f.root + "/x.txt"], indexPath: f.indexPath) }
    }

    @Test("unreadable directories are skipped, counted and reported once each")
    func unreadableDirectories() throws {
        let f = try BundleFixture(["R.app/Info.plist": infoPlist([:]), "R.app/ok.txt": "", "R.app/Secret/s.txt": "",
                                   "Hidden/Inner.app/Info.plist": infoPlist([:])])
        chmod(f.root, 0o755)
        chmod(f.root + "/R.app/Secret", 0)
        chmod(f.root + "/Hidden", 0)
        defer { chmod(f.root + "/R.app/Secret", 0o755); chmod(f.root + "/Hidden", 0o755) }
        // root reads everything: run the build as nobody then (the CI machine runs as root).
        let index = makeTempDirectory(prefix: "unreadable-index")
        defer { try? FileManager.default.removeItem(atPath: index) }
        // The build runs as nobody: the index folder is nobody's (a folder writable by every
        // user is refused, docs/reliability.md).
        if getuid() == 0 { chown(index, 65534, 65534) }
        var argv = [bundleidxBinary, "build", f.root, "--index", index]
        if getuid() == 0 { argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + argv }
        let result = try run(argv, cwd: "/")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("indexed 1 bundles"), "\(result.stdout)")
        #expect(result.stderr.contains("2 unreadable directories were skipped"), "\(result.stderr)")
    }

    @Test("the scan threads hand over every bundle in walk order, with the files a plain scan reads, whichever thread read them")
    func pipelineOrder() throws {
        var files: [String: String] = [:]
        for b in 0..<12 {
            files["B\(b).app/Info.plist"] = b % 5 == 4 ? "<plist><dict>" : infoPlist(["CFBundleIdentifier": "b\(b)"])
            files["B\(b).app/en.lproj/Localizable.strings"] = "\"k\" = \"v\\(b)\";"
            files["B\(b).app/en.lproj/InfoPlist.strings"] = "\"CFBundleName\" = \"B\(b)\";"
            files["B\(b).app/Nested\(b).bundle/Info.plist"] = infoPlist([:])
            files["B\(b).app/Nested\(b).bundle/fr.lproj/T.strings"] = b % 2 == 0 ? "\"n\" = \"\\(b)\";" : "\"n\" = \"x\""
        }
        let f = try BundleFixture(files)
        // A bundle's files are read by the writing thread or, when the walk is that far ahead,
        // by the walking thread (the smaller the capacity, the more often): each bundle still
        // arrives in walk order with what a plain scan reads, and the files' warnings come in
        // walk order after the walk's.
        var walked: [ScannedBundle] = []
        let plain = try TreeWalker().walk(root: f.root) { walked.append($0) }
        for capacity in [1, 2, 8, 64] {
            var handed: [ScannedBundle] = []
            let report = try ScanPipeline.run(root: f.root, capacity: capacity) { item in
                guard case .scanned(let bundle) = item else { return }
                handed.append(bundle)
            }
            #expect(handed.map(\.path) == walked.map(\.path))
            #expect(handed.map(\.tables) == walked.map(\.tables))
            #expect(handed.map(\.infoPlists) == walked.map(\.infoPlists))
            #expect(handed.map { $0.stringsFiles.map { [$0.directory, $0.name] } } == walked.map { $0.stringsFiles.map { [$0.directory, $0.name] } })
            #expect(handed.map { $0.stringsFiles.map(\.dictionary) } == walked.map { $0.stringsFiles.map(\.dictionary) })
            #expect(handed.map(\.warnings) == walked.map(\.warnings))
            #expect(report.warnings == plain.warnings)
            #expect(report.bundles == 24)
        }
        #expect(walked.allSatisfy { !$0.tables.isEmpty })
        // Two broken Info.plists (B4, B9); six tables missing a `;`, each a table of its bundle and
        // of the flat bundle holding it.
        #expect(plain.warnings.count == 14, "\(plain.warnings)")
    }

    @Test("a write error stops the scan thread and reaches the caller")
    func pipelineError() throws {
        var files: [String: String] = [:]
        for b in 0..<40 { files["B\(b).app/Info.plist"] = infoPlist([:]) }
        let f = try BundleFixture(files)
        struct WriteFailed: Error {}
        var handed = 0
        #expect(throws: WriteFailed.self) {
            try ScanPipeline.run(root: f.root) { _ in
                handed += 1
                throw WriteFailed()
            }
        }
        #expect(handed == 1)
    }

    @Test("a listing sorted by the names' first eight bytes, then whole, is in byte order, as a plain sort by byteOrder puts it")
    func listingSortedByNameBytes() {
        // Names sharing eight bytes and more, names that start others, multi-byte UTF-8 (a
        // prefix cut inside a character), twins in two Unicode forms, bytes above 0x7F first.
        let parts = ["a", "ab", "abcdefgh", "abcdefghi", "Caf\u{E9}", "Cafe\u{301}", "\u{1F600}", "z", "Z", "é", "_", "0"]
        var random = SeededRandom(state: 20261127)
        for round in 0..<300 {
            var seen = Set<[UInt8]>()
            var entries: [DirectoryEntry] = []
            for _ in 0..<random.below(40) {
                let name = (0..<(1 + random.below(4))).map { _ in random.pick(parts)! }.joined()
                // One directory holds a name once, byte for byte.
                guard seen.insert(Array(name.utf8)).inserted else { continue }
                entries.append(DirectoryEntry(name: name, flags: [], rank: UInt32(entries.count)))
            }
            var sorted = entries
            DirectoryReader.sortByName(&sorted)
            let plain = entries.sorted { byteOrder($0.name, $1.name) }
            #expect(sorted.map { Array($0.name.utf8) } == plain.map { Array($0.name.utf8) }, "round \(round)")
            #expect(sorted.map(\.rank).sorted() == entries.map(\.rank), "every entry once, round \(round)")
        }
    }
}
