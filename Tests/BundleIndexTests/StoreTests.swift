// The index file: opening what is not an index, format versions, damage, atomic builds, and
// re-indexing one bundle without touching the rest.
import Foundation
import Synchronization
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Index store")
struct StoreTests {
    static let twoBundles = [
        "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "a"]), "A.app/a.txt": "a",
        "B.app/Info.plist": infoPlist(["CFBundleIdentifier": "b"]), "B.app/b.txt": "b",
    ]

    @Test("a rebuild keeps bundle ids: a bundle opened before it still finds its resources")
    func rebuildKeepsBundleIDs() throws {
        let f = try BundleFixture(Self.twoBundles)
        try f.build()
        let reader = try f.reader()
        let a = try #require(try reader.bundle(identifier: "a", context: .foundationLinux))
        try f.build()
        #expect(try a.path(forResource: "a", ofType: "txt") == f.root + "/A.app/a.txt",
                "the bundle record read before the rebuild and the lookup after it agree")
        // A bundle that vanished is removed; one that appeared is added.
        try FileManager.default.removeItem(atPath: f.root + "/B.app")
        try FileManager.default.createDirectory(atPath: f.root + "/C.app", withIntermediateDirectories: true)
        try Data(infoPlist(["CFBundleIdentifier": "c"]).utf8).write(to: URL(fileURLWithPath: f.root + "/C.app/Info.plist"))
        try f.build()
        #expect(try reader.bundle(identifier: "b") == nil)
        #expect(try reader.bundle(identifier: "c") != nil)
        #expect(try IndexVerifier.verify(indexPath: f.indexPath, roots: [f.root]) == [])
    }

    @Test("a reader and a later writer in one process share one LMDB environment (a second one would clear the first's reader table)")
    func readerAndWriterShareTheEnvironment() throws {
        let f = try BundleFixture(Self.twoBundles)
        try f.build()
        let reading = try IndexStore.openForReading(path: f.indexPath)
        let writing = try IndexStore.openForWriting(path: f.indexPath)
        #expect(reading.environment === writing.environment)
        // Readers opened while it lives use it too, and builds through it keep the readers' data.
        let reader = try f.reader()
        let a = try #require(try reader.bundle(identifier: "a", context: .foundationLinux))
        for _ in 0..<20 {
            _ = try IndexBuilder.build(roots: [f.root], indexPath: f.indexPath, full: true)
            #expect(try a.path(forResource: "a", ofType: "txt") == f.root + "/A.app/a.txt")
        }
        #expect(try IndexStore.openForReading(path: f.indexPath).environment === writing.environment)
        // Other spellings of the index's path name the same directory, so the same environment.
        let link = f.root + "-index-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: f.indexPath)
        defer { try? FileManager.default.removeItem(atPath: link) }
        for spelling in [link, f.indexPath + "/.", f.indexPath + "//", link + "/../" + (link as NSString).lastPathComponent] {
            #expect(try IndexStore.openForReading(path: spelling).environment === writing.environment, "\(spelling)")
        }
    }

    @Test("a reader that promises never to write opens the index read-only, and still sees every commit")
    func readerThatNeverWrites() throws {
        // Indexes built by another process, so that this one opens each for the first time.
        let promised = try BundleFixture(Self.twoBundles), plain = try BundleFixture(Self.twoBundles)
        for f in [promised, plain] {
            #expect(try run([bundleidxBinary, "build", f.root, "--index", f.indexPath]).status == 0)
        }
        let reader = try IndexReader(pathNeverWrittenHere: promised.indexPath)
        #expect(reader.store.environment.readOnly, "MDB_RDONLY although the files are writable")
        #expect(try !IndexReader(path: plain.indexPath).store.environment.readOnly,
                "a reader that may write opens as a writer would, so a build in its process can share it")
        #expect(try reader.bundle(identifier: "a", context: .foundationLinux) != nil)
        try promised.add(["C.app/Info.plist": infoPlist(["CFBundleIdentifier": "c"])])
        #expect(try run([bundleidxBinary, "build", promised.root, "--index", promised.indexPath]).status == 0)
        #expect(try reader.bundle(identifier: "c", context: .foundationLinux) != nil, "the commit of another process is seen")
    }

    @Test("queries during rebuilds of the same root never miss a resource that exists in every version")
    func noSpuriousMissDuringRebuilds() throws {
        let f = try BundleFixture(Self.twoBundles)
        try f.build()
        let reader = try f.reader()
        final class Stop: Sendable { let flag = Atomic<Bool>(false) }
        let stop = Stop()
        let (root, index) = (f.root, f.indexPath)
        let builder = Thread {
            while !stop.flag.load(ordering: .relaxed) { _ = try? IndexBuilder.build(roots: [root], indexPath: index) }
        }
        builder.start()
        defer { stop.flag.store(true, ordering: .relaxed) }
        var misses = 0
        let deadline = Date().addingTimeInterval(2)
        var queries = 0
        while Date() < deadline {
            // The bundle record and the lookup in two read transactions, as a CLI query makes them.
            if try reader.bundle(identifier: "a", context: .foundationLinux)?.path(forResource: "a", ofType: "txt") == nil {
                misses += 1
            }
            queries += 1
        }
        stop.flag.store(true, ordering: .relaxed)
        #expect(misses == 0, "\(misses) of \(queries) queries missed")
        #expect(queries > 100)
    }

    @Test("an open reader's generation follows every commit, and stays put without one")
    func generationFollowsCommits() throws {
        let f = try BundleFixture(Self.twoBundles)
        try f.build()
        let reader = try f.reader()
        let first = try reader.generation()
        #expect(try reader.generation() == first)
        try f.build()
        #expect(try reader.generation() == first + 1)
        #expect(try reader.generation() == first + 1)
        try f.add(["A.app/c.txt": "c"])
        try f.build()
        #expect(try reader.generation() == first + 2)
        #expect(try reader.statistics().generation == first + 2)
    }

    @Test("a missing index path is reported as missing")
    func missing() {
        #expect(throws: BundleIndexError.missing(path: "/nonexistent/bundleidx")) {
            try IndexReader(path: "/nonexistent/bundleidx")
        }
    }

    @Test("a file, an empty folder, a folder with junk data.mdb are not indexes")
    func notAnIndex() throws {
        let dir = makeTempDirectory(prefix: "notindex")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        FileManager.default.createFile(atPath: dir + "/file", contents: Data("x".utf8))
        try FileManager.default.createDirectory(atPath: dir + "/empty", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/junk", withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: dir + "/junk/data.mdb", contents: Data((0..<20000).map { UInt8($0 % 251) }))
        for p in ["file", "empty", "junk"] {
            #expect(throws: BundleIndexError.self) { try IndexReader(path: dir + "/" + p) }
            do { _ = try IndexReader(path: dir + "/" + p) } catch let e as BundleIndexError {
                guard case .notAnIndex = e else { Issue.record("\(p): \(e)"); continue }
            }
        }
    }

    @Test("an LMDB environment that bundleidx did not write is refused")
    func foreignEnvironment() throws {
        let dir = makeTempDirectory(prefix: "foreign")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = try LMDBEnvironment(path: dir, readOnly: false)
        try env.write { txn in
            let dbi = try env.openDatabase("other", in: txn, create: true)!
            try txn.put(dbi, key: Array("k".utf8), value: Array("v".utf8))
        }
        do {
            _ = try IndexReader(path: dir)
            Issue.record("a foreign environment was opened")
        } catch let e as BundleIndexError {
            guard case .notAnIndex = e else { Issue.record("\(e)"); return }
        }
    }

    @Test("another format version is refused with both versions named")
    func otherVersion() throws {
        let f = try BundleFixture(Self.twoBundles)
        try f.build()
        let store = try IndexStore.openForWriting(path: f.indexPath)
        try store.environment.write { txn in
            try txn.put(store.meta, key: Array("version".utf8), value: withUnsafeBytes(of: UInt32(99).littleEndian) { Array($0) })
        }
        #expect(throws: BundleIndexError.unsupportedVersion(path: f.indexPath, found: 99, supported: IndexStore.formatVersion)) {
            try IndexReader(path: f.indexPath)
        }
    }

    @Test("an index of a later format with a database this one does not know is replaced by build, not taken for another program's")
    func laterFormatWithNewDatabase() throws {
        let f = try BundleFixture(Self.twoBundles)
        try f.build()
        do {
            let env = try LMDBEnvironment(path: f.indexPath, readOnly: false)
            try env.write { txn in
                let meta = try #require(try env.openDatabase("meta", in: txn, create: false))
                let future = try #require(try env.openDatabase("future", in: txn, create: true))
                try txn.put(future, key: [1], value: [2])
                try txn.put(meta, key: Array("version".utf8), value: withUnsafeBytes(of: UInt32(99).littleEndian) { Array($0) })
            }
        }
        // Format 18 looked for unknown databases first: "an LMDB environment of another program".
        let summary = try f.build()
        #expect(summary.replacedIndex?.contains("format version 99") == true)
        #expect(try f.reader().bundle(identifier: "a") != nil)
    }

    @Test("a truncated data file is reported as damaged, not mapped")
    func truncated() throws {
        let f = try BundleFixture(Self.twoBundles)
        try f.build()
        let data = f.indexPath + "/data.mdb"
        let size = try FileManager.default.attributesOfItem(atPath: data)[.size] as! Int
        #expect(truncate(data, off_t(size - 4096)) == 0)
        do {
            _ = try IndexReader(path: f.indexPath)
            Issue.record("a truncated index was opened")
        } catch let e as BundleIndexError {
            guard case .corrupt = e else { Issue.record("\(e)"); return }
        }
    }

    @Test("a type is looked up in the directory's listing: start and end types in byte order, one read, damage is an error")
    func typeEntriesFromListing() throws {
        let f = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "a"]), "A.app/a.txt": "", "A.app/b.tar.gz": "",
            "A.app/c.gz": "", "A.app/gz": "", "A.app/d.gz.txt": "", "A.app/Sub/e.gz": "",
        ])
        try f.build()
        let store = try IndexStore.openForWriting(path: f.indexPath)
        let id = try #require(try store.read { try $0.bundle(path: f.root + "/A.app") }).id
        let root = DirectoryRef("")
        func names(_ type: String, first: Bool = false) throws -> ([String], reads: Int) {
            try store.read { s in (try s.typeEntries(bundle: id, root, type: type, first: first).map(\.name), s.reads) }
        }
        #expect(try names("gz") == (["b.tar.gz", "c.gz"], 1))
        #expect(try names("tar.gz") == (["b.tar.gz"], 1))
        #expect(try names("gz.txt") == (["d.gz.txt"], 1))
        #expect(try names("txt") == (["a.txt", "d.gz.txt"], 1))
        #expect(try names("gz", first: true).0 == ["b.tar.gz"])
        #expect(try names("png") == ([], 1))
        // Another directory's record under the key (a hash collision) holds nothing for it.
        #expect(try store.read { try $0.typeEntries(bundle: id, DirectoryRef("Sub"), type: "gz") }.map(\.name) == ["e.gz"])
        let key = ResourceKey.directory(bundle: id, directory: root.hash)
        let whole = try #require(try store.read { try $0.txn.get(store.resources, key: key.bytes) as [UInt8]? })
        let subKey = ResourceKey.directory(bundle: id, directory: DirectoryRef("Sub").hash)
        let sub = try #require(try store.read { try $0.txn.get(store.resources, key: subKey.bytes) as [UInt8]? })
        try store.write { try $0.txn.put(store.resources, key: key.bytes, value: sub) }
        #expect(try names("gz").0.isEmpty)
        // A listing cut short is damage, never a crash or a shorter answer.
        try store.write { try $0.txn.put(store.resources, key: key.bytes, value: Array(whole.dropLast(2))) }
        #expect(throws: BundleIndexError.self) { try names("gz") }
    }

    @Test("front-coded listings: every entry comes back, in order and by index in any order")
    func frontCodedListing() throws {
        // Shared prefixes of every length, an empty-suffix duplicate prefix, non-ASCII bytes,
        // more than a few blocks of entries, and names longer than the cursor's first buffer
        // (64 bytes) and its second, next to short ones sharing their start.
        let long = String(repeating: "L", count: 70)
        var names = (0..<70).map { "icon_\($0 % 7)_\($0).png" } + ["a", "ab", "abc", "é.txt", "éé", "z"]
            + [long, long + "M", "L", long + String(repeating: "n", count: 230), "LL.png"]
        names.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let entries = names.enumerated().map { DirectoryEntry(name: $1, flags: $0 % 3 == 0 ? .directory : [], rank: UInt32(1000 - $0)) }
        var w = ByteWriter()
        let variants = [DirectoryRecord.VariantName(name: "a.png", candidates: [0, 3]),
                        DirectoryRecord.VariantName(name: "é", candidates: [entries.count - 1])]
        DirectoryRecord(path: "Images", changeTime: 42, entries: entries, variantNames: variants).encode(into: &w)
        try w.withBytes { bytes in
            let decoded = try DirectoryRecord.decode(bytes)
            #expect(decoded.entries == entries && decoded.path == "Images" && decoded.changeTime == 42)
            #expect(decoded.variantNames == variants)
            var r = ByteReader(bytes)
            _ = try r.u8(); _ = try r.u8(); _ = try r.slice(); _ = try r.u64(); _ = try r.slice()
            var cursor = try FrontCodedEntries.Cursor(&r)
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<300 {
                let i = Int.random(in: 0..<entries.count, using: &generator)
                #expect(try cursor.entry(at: i) == entries[i])
            }
            var read: [String] = []
            #expect(try cursor.forEach { name, _, _ in read.append(String(decoding: name, as: UTF8.self)); return true })
            #expect(read == names)
            // Damage: a cut anywhere is an error, never a crash or a wrong listing.
            for cut in stride(from: 1, to: bytes.count, by: 7) {
                #expect(throws: IndexFormatError.self) { try DirectoryRecord.decode(UnsafeRawBufferPointer(rebasing: bytes[..<cut])) }
            }
        }
        // A folder's inode number (format 18) follows its time only when kept, and comes back.
        var withInode = ByteWriter()
        DirectoryRecord(path: "Resources", changeTime: 9, inode: 1_234_567, entries: entries, variantNames: variants)
            .encode(into: &withInode)
        #expect(withInode.count == w.count - "Images".utf8.count + "Resources".utf8.count + 3)
        try withInode.withBytes { bytes in
            let decoded = try DirectoryRecord.decode(bytes)
            #expect(decoded.inode == 1_234_567 && decoded.changeTime == 9)
            #expect(decoded.entries == entries && decoded.variantNames == variants)
            #expect(try StoredDirectory(bytes).inode == 1_234_567)
        }
        let inodeOfPlain = try w.withBytes { try StoredDirectory($0).inode }
        #expect(inodeOfPlain == 0)
    }

    @Test("a directory record keeps the incremental walk's flag and its strings tables' indices; damaged ones are errors")
    func walkFlagsAndTables() throws {
        // Tables among other entries: a folder named like a table is none, nor is `.strings.bak`;
        // more than one block of entries, so a name is read by index across the block table.
        var names = (0..<40).map { "image\($0).png" } + ["Localizable.strings", "InfoPlist.strings", "Plurals.stringsdict",
                                                           "Folder.strings", "old.strings.bak", "Z.strings"]
        names.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let entries = names.map { DirectoryEntry(name: $0, flags: $0 == "Folder.strings" ? .directory : []) }
        let tables = ["InfoPlist.strings", "Localizable.strings", "Plurals.stringsdict", "Z.strings"]
        for walk in [UnchangedWalk.none, .enter, .passOver] {
            var w = ByteWriter()
            DirectoryRecord(path: "Resources/fr.lproj", changeTime: 7, entries: entries, variantNames: [], unchangedWalk: walk)
                .encode(into: &w)
            try w.withBytes { bytes in
                let decoded = try DirectoryRecord.decode(bytes)
                #expect(decoded.unchangedWalk == walk && decoded.entries == entries)
                let stored = try StoredDirectory(bytes)
                #expect(stored.unchangedWalk == walk && stored.count == entries.count)
                var found: [String] = []
                #expect(try stored.tables(allSatisfy: { found.append($0); return true }))
                #expect(found == tables)
                // Asked no further than the first name the predicate turns down.
                var asked: [String] = []
                #expect(try !stored.tables(allSatisfy: { asked.append($0); return $0 != "Localizable.strings" }))
                #expect(asked == ["InfoPlist.strings", "Localizable.strings"])
                // Both walk bits at once is no record this build writes.
                var both = Array(bytes)
                both[1] |= 6
                #expect(throws: IndexFormatError.self) { try both.withUnsafeBytes { _ = try StoredDirectory($0) } }
            }
        }
        // A section naming an entry that is not a table (here: all but the last index shifted
        // down by one) is damage.
        var w = ByteWriter()
        DirectoryRecord(path: "", changeTime: 1, entries: entries, variantNames: []).encode(into: &w)
        var bytes = w.bytes
        let (sectionLength, first) = try bytes.withUnsafeBytes { raw in
            var r = ByteReader(raw)
            _ = try r.u8(); _ = try r.u8(); _ = try r.slice(); _ = try r.u64()
            return (Int(try r.varint()), r.offset)
        }
        #expect(sectionLength == tables.count)
        bytes[first] -= 1
        #expect(throws: IndexFormatError.self) { try bytes.withUnsafeBytes { _ = try DirectoryRecord.decode($0) } }
        // A listing without tables has no section.
        var plain = ByteWriter()
        DirectoryRecord(path: "", changeTime: 1, entries: [DirectoryEntry(name: "a.png", flags: [])], variantNames: [])
            .encode(into: &plain)
        #expect(plain.bytes[1] & 8 == 0)
    }

    @Test("a directory record answers a name: every entry with its flags, a variant name with its candidates, nothing for names between, before, after or inside entries")
    func listingFindsNames() throws {
        // Block heads, entries inside blocks, names that are prefixes of others and the reverse,
        // one block and many, and the empty listing; with and without variant names.
        for size in [0, 1, 15, 16, 17, 33, 76] {
            var names = (0..<70).map { "icon_\($0 % 7)_\($0).png" } + ["a", "ab", "abc", "é.txt", "éé", "z"]
            names.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            names = Array(names.prefix(size))
            let entries = names.enumerated().map { DirectoryEntry(name: $1, flags: $0 % 3 == 0 ? .directory : [], rank: UInt32($0)) }
            // "b" (no entry of that name) and the last entry's name answered by variants.
            let variants = size < 2 ? [] : [DirectoryRecord.VariantName(name: "b", candidates: [0, size - 1]),
                                            DirectoryRecord.VariantName(name: names[size - 1], candidates: [1, size - 1])]
            // Many variant names, every other entry's name among them: the binary search over them.
            let many = size < 2 ? [] : names.enumerated().filter { $0.offset % 2 == 1 }
                .map { DirectoryRecord.VariantName(name: $0.element, candidates: [0, $0.offset]) }
            for variantNames in [[], variants, many] {
                var w = ByteWriter()
                DirectoryRecord(path: "Images", changeTime: 1, entries: entries, variantNames: variantNames).encode(into: &w)
                try w.withBytes { bytes in
                    /// The answer spelled out: "-", the flags of an exact entry, or the candidates' names.
                    func lookup(_ name: String, path: String = "Images") throws -> String? {
                        try Array(name.utf8).withUnsafeBytes { n in
                            try Array(path.utf8).withUnsafeBytes { p in
                                switch try DirectoryRecord.candidates(bytes, path: p, name: n) {
                                case nil: return nil
                                case .none?: return "-"
                                case .exact(let flags)?: return "\(flags.rawValue)"
                                case .several(let list)?: return list.map(\.name).joined(separator: ",")
                                }
                            }
                        }
                    }
                    let answered = Dictionary(uniqueKeysWithValues: variantNames.map {
                        ($0.name, $0.candidates.map { names[$0] }.joined(separator: ","))
                    })
                    for e in entries {
                        let found = try lookup(e.name)
                        #expect(found == answered[e.name] ?? "\(e.flags.rawValue)", "\(e.name) in \(size)")
                    }
                    let absent = ["", "0", "aa", "abcd", "icon_", "icon_3_3.pn", "icon_3_3.pngx", "icon_9", "é", "éé.txt", "zz", "~", "b"]
                    for name in absent where !names.contains(name) {
                        let found = try lookup(name)
                        #expect(found == answered[name] ?? "-", "\(name) in \(size)")
                    }
                    // Another directory's record under a colliding key answers nothing.
                    let elsewhere = try lookup(names.first ?? "a", path: "Images2")
                    #expect(elsewhere == nil)
                }
            }
        }
    }

    @Test("a directory record lists each name variants answer, with every variant of it and the entry of that name")
    func variantNamesOfADirectory() {
        // Byte order: '-' < '.' < '~'. `logo.png` has no entry of its own; `x.txt` no variant.
        let names = ["icon-linux.png", "icon.png", "icon~ipad.png", "logo-macos.png", "x.txt"]
        let dir = ScannedDirectory(path: "", entries: names.map { DirectoryEntry(name: $0, flags: []) }, changeTime: 0)
        #expect(ResourceRecords.variantNames(of: dir) == [
            DirectoryRecord.VariantName(name: "icon.png", candidates: [0, 1, 2]),
            DirectoryRecord.VariantName(name: "logo.png", candidates: [3]),
        ])
        let plain = ScannedDirectory(path: "", entries: [DirectoryEntry(name: "a-b.png", flags: [])], changeTime: 0)
        #expect(ResourceRecords.variantNames(of: plain).isEmpty, "`-b` is no platform: no variant names, no section")
    }

    @Test("build refuses to write into a folder that holds other files")
    func refusesToOverwrite() throws {
        let f = try BundleFixture(Self.twoBundles)
        FileManager.default.createFile(atPath: f.root + "/notes.txt", contents: Data())
        #expect(throws: BundleIndexError.self) { try IndexBuilder.build(roots: [f.root], indexPath: f.root) }
    }

    @Test("rebuilding a root replaces its bundles and keeps other roots")
    func rebuildRoot() throws {
        let one = try BundleFixture(Self.twoBundles)
        let other = try BundleFixture(["C.app/Info.plist": infoPlist(["CFBundleIdentifier": "c"]), "C.app/c.txt": ""])
        _ = try IndexBuilder.build(roots: [one.root], indexPath: one.indexPath)
        _ = try IndexBuilder.build(roots: [other.root], indexPath: one.indexPath)
        try FileManager.default.removeItem(atPath: one.root + "/B.app")
        FileManager.default.createFile(atPath: one.root + "/A.app/new.txt", contents: Data())
        _ = try IndexBuilder.build(roots: [one.root], indexPath: one.indexPath)
        let r = try IndexReader(path: one.indexPath)
        #expect(try r.bundle(identifier: "b") == nil)
        #expect(try r.bundle(identifier: "a")?.rel("new", "txt") == "new.txt")
        #expect(try r.bundle(identifier: "c")?.rel("c", "txt") == "c.txt")
        #expect(try r.bundles().count == 2)
    }

    @Test("removing one bundle deletes exactly its key range")
    func removeOneBundle() throws {
        let f = try BundleFixture(Self.twoBundles)
        try f.build()
        let store = try IndexStore.openForWriting(path: f.indexPath)
        let before = try store.read { try $0.resourceRecordCount() }
        try store.write { try $0.removeBundle(path: f.root + "/B.app") }
        let after = try store.read { try $0.resourceRecordCount() }
        let r = try IndexReader(path: f.indexPath)
        #expect(try r.bundle(identifier: "b") == nil)
        #expect(try r.bundle(identifier: "a")?.rel("a", "txt") == "a.txt")
        #expect(after < before && after > 0)
    }

    @Test("the crash guard turns a fault inside the index's map into exit 3 and leaves other faults alone")
    func crashGuardOwnsOnlyMappedReads() throws {
        let f = try BundleFixture(Self.twoBundles)
        try f.build()
        for (mode, expectCrash) in [("inside", false), ("outside", true)] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: testHelperBinary("FaultProbe"))
            process.arguments = [f.indexPath, mode]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if expectCrash {
                #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGSEGV,
                        "a fault outside the map is a crash, not an index error")
            } else {
                #expect(process.terminationReason == .exit && process.terminationStatus == 3)
                #expect(text.contains("damaged"))
            }
        }
    }

    @Test("kill -9 during build leaves the previous index intact and readable")
    func killedBuild() throws {
        let old = try BundleFixture(Self.twoBundles)
        try old.build()
        // A second tree, large enough that the killed transaction holds real writes.
        var files: [String: String] = [:]
        for b in 0..<20 {
            files["N\(b).app/Info.plist"] = infoPlist(["CFBundleIdentifier": "n\(b)"])
            for i in 0..<200 { files["N\(b).app/r\(i).txt"] = "" }
        }
        let new = try BundleFixture(files)
        let marker = new.root + "-stalled"
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: testHelperBinary("BuildUntilCommit"))
        process.arguments = [marker, old.indexPath, old.root, new.root]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while !FileManager.default.fileExists(atPath: marker) && process.isRunning && Date() < deadline {
            usleep(20_000)
        }
        #expect(FileManager.default.fileExists(atPath: marker), "the build never reached its commit point")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let r = try IndexReader(path: old.indexPath)
        #expect(try r.bundle(identifier: "a")?.rel("a", "txt") == "a.txt")
        #expect(try r.bundle(identifier: "n0") == nil, "nothing of the killed build is visible")
        #expect(try r.bundles().count == 2)
        // LMDB's robust writer mutex lets the next build proceed.
        _ = try IndexBuilder.build(roots: [new.root], indexPath: old.indexPath)
        #expect(try IndexReader(path: old.indexPath).bundle(identifier: "n0")?.rel("r7", "txt") == "r7.txt")
    }

    @Test("a bundle record decoded for queries holds the Info.plist files the profile reads and no stamps")
    func partialRecord() throws {
        let plist: [String: PropertyListValue] = ["CFBundleIdentifier": .string("a"),
                                                  "Nested": .array([.dictionary(["k": .data([1, 2]), "d": .date(3)]), .bool(true)]),
                                                  "N": .integer(-4), "R": .real(0.5)]
        let record = BundleRecord(id: 9, path: "/x/A.app", layout: .flat,
                                  infoPlists: [InfoPlistFile(name: "Info-gnustep.plist", dictionary: plist),
                                               InfoPlistFile(name: "broken.plist", dictionary: nil),
                                               InfoPlistFile(name: "Info.plist", dictionary: ["CFBundleIdentifier": .string("b")])],
                                  lprojs: ["en", "fr"], warnings: ["w"], root: "/x", scannedAt: 5,
                                  stamps: [FileStamp(path: "", changeTime: 1, inode: 0)],
                                  directoryMarks: DirectoryMarks(hashes: [0xFFFF_0000_0000_0000, 1, 0x1234_0000_0000_0000, 7]))
        let bytes = record.encode()
        let full = try bytes.withUnsafeBytes { try BundleRecord.decode($0, path: record.path) }
        #expect(full == record)
        // The path is the key, not in the value; a root that starts the path is kept as a length.
        #expect(!bytes.starts(with: Array("/x/A.app".utf8)) && bytes.firstRange(of: Array("/x/A.app".utf8)) == nil)
        for root in ["/", "/elsewhere", "/x/A", ""] {
            let other = BundleRecord(id: 9, path: "/x/A.app", layout: .flat, infoPlists: [], lprojs: [], warnings: [],
                                     root: root, scannedAt: 5, stamps: [], directoryMarks: DirectoryMarks(hashes: []))
            #expect(try other.encode().withUnsafeBytes { try BundleRecord.decode($0, path: "/x/A.app") } == other, "root \(root)")
        }
        // A root length past the end of the key is damage, not a crash.
        let rooted = BundleRecord(id: 9, path: "/x/A.app", layout: .flat, infoPlists: [], lprojs: [], warnings: [],
                                  root: "/x/A", scannedAt: 5, stamps: [], directoryMarks: DirectoryMarks(hashes: [])).encode()
        #expect(throws: IndexFormatError.self) { try rooted.withUnsafeBytes { try BundleRecord.decode($0, path: "/x") } }
        for (context, kept) in [(SearchContext.foundationLinux, ["Info.plist"]),
                                (.apple(), ["Info-gnustep.plist", "Info.plist"])] {
            let partial = try bytes.withUnsafeBytes {
                try BundleRecord.decode($0, path: record.path, forQueriesReading: { BundleInfo.mayRead(infoPlistNamed: $0, context) })
            }
            #expect(partial.isPartial && partial.stamps.isEmpty)
            #expect(partial.infoPlists == record.infoPlists.filter { kept.contains($0.name) })
            #expect(partial.id == 9 && partial.path == record.path && partial.layout == .flat && partial.lprojs == ["en", "fr"]
                    && partial.warnings == ["w"] && partial.directoryMarks == record.directoryMarks)
            #expect(BundleInfo(record: partial, context: context).infoDictionary
                    == BundleInfo(record: full, context: context).infoDictionary)
        }
    }

    @Test("directory marks hold every directory's mark, pass few others, and refuse damage")
    func directoryMarks() throws {
        var generator = SeededRandom(state: 16)
        let hashes = (0..<300).map { _ in generator.next() }
        let marks = DirectoryMarks(hashes: hashes + hashes.prefix(20))
        #expect(hashes.allSatisfy(marks.mayHold))
        #expect(marks.marks.count <= 300 && marks.marks == marks.marks.sorted() && Set(marks.marks).count == marks.marks.count)
        // Hashes not added pass only where their mark is some added hash's: about 300 in 65 536.
        let others = (0..<10_000).map { _ in generator.next() }.filter { !marks.mayHold($0) }
        #expect(others.count > 9_800)
        let empty = DirectoryMarks(hashes: [])
        #expect(!empty.mayHold(0) && !empty.mayHold(hashes[0]))
        for m in [marks, empty, DirectoryMarks(hashes: [0, UInt64.max])] {
            var w = ByteWriter(capacity: 16)
            m.encode(into: &w)
            w.u8(0x7F)
            try w.bytes.withUnsafeBytes { bytes in
                var r = ByteReader(bytes)
                #expect(try DirectoryMarks.decode(from: &r) == m)
                #expect(try r.u8() == 0x7F)
                var skipping = ByteReader(bytes)
                try DirectoryMarks.skip(in: &skipping)
                #expect(try skipping.u8() == 0x7F)
            }
        }
        // Out of order, repeated, or cut short: damage, never a crash.
        for damaged: [UInt8] in [[2, 5, 0, 4, 0], [2, 5, 0, 5, 0], [2, 5, 0, 4], [3, 1, 0]] {
            #expect(throws: IndexFormatError.self) {
                try damaged.withUnsafeBytes { bytes in
                    var r = ByteReader(bytes)
                    _ = try DirectoryMarks.decode(from: &r)
                }
            }
        }
    }

    @Test("format 14: a directory record's key is 12 bytes, a strings record's 20 beginning with it; a listing of at most 16 entries has no block table")
    func format14Layout() throws {
        let f = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "a"]), "A.app/a.txt": "", "A.app/Sub/b.txt": "",
            "A.app/en.lproj/InfoPlist.strings": "CFBundleName = \"A\";", "A.app/en.lproj/c.txt": "",
        ])
        try f.build()
        let store = try IndexStore.openForWriting(path: f.indexPath)
        let id = try #require(try store.read { try $0.bundle(path: f.root + "/A.app") }).id
        var keys: [[UInt8]] = []
        try store.read { snapshot in
            try snapshot.forEachResourceRecord(bundle: id) { key, value in
                keys.append(Array(key))
                #expect(value.first == (key.count == 12 ? RecordTag.directory : RecordTag.strings).rawValue)
                return true
            }
        }
        // The root, Sub and en.lproj, and en.lproj's InfoPlist.strings right after its directory.
        #expect(keys.map(\.count).sorted() == [12, 12, 12, 20])
        let strings = try #require(keys.firstIndex { $0.count == 20 })
        #expect(keys[strings - 1] == Array(keys[strings].prefix(12)))
        #expect(ResourceKey.directory(bundle: id, directory: DirectoryRef("en.lproj").hash).bytes == keys[strings - 1])
        #expect(keys.allSatisfy { key in key.withUnsafeBytes { ResourceKey.isDirectoryRecord($0) } == (key.count == 12) })

        // The block table holds the offsets of the blocks after the first: a 17th entry costs
        // its own bytes (flags, rank, shared 0, length, "q117") and one u32, a 16th only its own
        // (flags, rank, shared 3, length, "6").
        func listingBytes(_ count: Int) -> Int {
            var w = ByteWriter()
            FrontCodedEntries.encode((1...count).map { DirectoryEntry(name: "q\($0 + 100)", flags: [], rank: UInt32($0)) }, into: &w)
            return w.count
        }
        #expect(listingBytes(17) - listingBytes(16) == 8 + 4)
        #expect(listingBytes(16) - listingBytes(15) == 5)
    }

    @Test("storageUse: every database's entries and bytes, the resources and strings databases by kind of record")
    func storageUse() throws {
        let fixture = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.a", "CFBundleDevelopmentRegion": "en"]),
            "A.app/a.txt": "", "A.app/b.txt": "", "A.app/b-linux.txt": "", "A.app/en.lproj/InfoPlist.strings": "CFBundleName = \"A\";",
            "A.app/en.lproj/Localizable.strings": "\"k\" = \"v\";",
            "A.app/en.lproj/Big.strings": (1...200).map { "\"key \($0)\" = \"value \($0)\";\n" }.joined(),
        ])
        try fixture.build()
        let use = try fixture.reader().storageUse()
        let whole = use.filter { $0.kind == "all" }
        #expect(whole.map(\.database) == ["meta", "bundles", "identifiers", "resources", "strings", "retired"])
        #expect(whole.allSatisfy { ($0.pageBytes ?? 0) >= $0.payloadBytes || $0.entries == 0 })
        #expect(whole.first { $0.database == "bundles" }?.entries == 1)
        #expect(whole.first { $0.database == "identifiers" }?.entries == 1)
        let resources = use.filter { $0.database == "resources" && $0.kind != "all" }
        let resourcesAll = try #require(whole.first { $0.database == "resources" })
        #expect(resources.map(\.entries).reduce(0, +) == resourcesAll.entries)
        #expect(resources.map(\.payloadBytes).reduce(0, +) == resourcesAll.payloadBytes)
        #expect(resources.contains { $0.kind == "localized Info tables (InfoPlist.strings)" && $0.entries == 1 })
        // Format 13: the directory records answer every name (`b.txt`, which `b-linux.txt`
        // answers too, among their variant names) and type; besides them only the strings record.
        #expect(resources.contains { $0.kind == "directory listings" && $0.entries == 2 })
        #expect(resources.count == 2)
        #expect(!resources.contains { $0.kind == "other" })
        // strings: small tables are one record each, a large one a table record and its chunks.
        let strings = use.filter { $0.database == "strings" && $0.kind != "all" }
        #expect(strings.map(\.entries).reduce(0, +) == whole.first { $0.database == "strings" }?.entries)
        #expect(strings.first { $0.kind == "tables with their entries" }?.entries == 2)
        #expect(strings.first { $0.kind == "table records of chunked tables" }?.entries == 1)
        #expect((strings.first { $0.kind == "entry chunks" }?.entries ?? 0) > 1)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: fixture.indexPath + "/data.mdb")[.size] as? Int)
        #expect(whole.compactMap(\.pageBytes).reduce(0, +) <= size)
    }
}

@Suite("Index store: appending keys")
struct AppendWhenLastTests {
    /// Writes `keys` (value: the key reversed, then 300 bytes) into a fresh database, with
    /// `putAppendingWhenLast` or a plain put; returns its pages and every entry read back.
    private func write(_ keys: [[UInt8]], appending: Bool) throws -> (pageBytes: Int, entries: [[UInt8]: [UInt8]]) {
        let folder = NSTemporaryDirectory() + "append-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let env = try LMDBEnvironment(path: folder, readOnly: false)
        return try env.write { txn in
            let dbi = try #require(try env.openDatabase("t", in: txn, create: true))
            for key in keys {
                let value = key.reversed() + Array(repeating: 7, count: 300)
                if appending { try txn.putAppendingWhenLast(dbi, key: key, value: value) } else { try txn.put(dbi, key: key, value: value) }
            }
            var entries: [[UInt8]: [UInt8]] = [:]
            try txn.scan(dbi, prefix: []) { k, v in
                entries[Array(k)] = Array(v)
                return true
            }
            return (try txn.pageBytes(dbi), entries)
        }
    }

    @Test("keys out of order are put in place; keys in order fill their pages more than plain puts do")
    func outOfOrderAndInOrder() throws {
        // Bundle paths as a sorted walk meets them: "A.app-2" sorts before "A.app/…" but comes after.
        let walk = ["/r/A.app", "/r/A.app/Contents/Frameworks/F.framework", "/r/A.app-2", "/r/B.app", "/r/A.app/x"]
            .map { Array($0.utf8) }
        let (_, entries) = try write(walk, appending: true)
        #expect(entries.count == walk.count)
        for key in walk { #expect(entries[key] == key.reversed() + Array(repeating: 7, count: 300)) }

        // 2 000 increasing keys: LMDB splits a page of plain puts where it can, ~85 % full here;
        // appended, the pages are ~93 % full (688 128 against 757 760 bytes when measured).
        let increasing = (0..<2_000).map { Array(String(format: "/r/%06d.app", $0).utf8) }
        let appended = try write(increasing, appending: true)
        let plain = try write(increasing, appending: false)
        #expect(appended.entries == plain.entries)
        #expect(Double(appended.pageBytes) < 0.95 * Double(plain.pageBytes),
                "appended \(appended.pageBytes) B, plain puts \(plain.pageBytes) B")
    }
}

@Suite("Index store: property-list coding")
struct PropertyListCodingTests {
    private func roundTrip(_ value: PropertyListValue) throws -> (bytes: [UInt8], back: PropertyListValue) {
        var w = ByteWriter()
        value.encode(into: &w)
        let bytes = w.bytes
        let back = try bytes.withUnsafeBytes { buffer in
            var r = ByteReader(buffer)
            let v = try PropertyListValue.decode(from: &r)
            #expect(r.isAtEnd)
            return v
        }
        return (bytes, back)
    }

    @Test("well-known keys are stored as their number, others as text, and both read back")
    func wellKnownKeys() throws {
        #expect(Set(InfoPlistKeys.all).count == InfoPlistKeys.all.count, "a key numbered twice")
        let long = String(repeating: "k", count: 200)
        let value = PropertyListValue.dictionary([
            "CFBundleIdentifier": .string("org.example.a"), "NSExecutable": .string("A"), "": .bool(true),
            "NotAKnownKey": .integer(-3), long: .array([.dictionary(["CFBundleTypeName": .string("Doc"), "x": .real(1.5)])]),
            "default": .data([0, 1]),
        ])
        let (bytes, back) = try roundTrip(value)
        #expect(back == value)
        // A one-byte number instead of 18 bytes of text; unknown keys keep their text.
        #expect(bytes.firstRange(of: Array("CFBundleIdentifier".utf8)) == nil)
        #expect(bytes.firstRange(of: Array("NotAKnownKey".utf8)) != nil)
        let known = try roundTrip(.dictionary(["CFBundleIdentifier": .string("")])).bytes
        let unknown = try roundTrip(.dictionary(["CFBundleIdentifieR": .string("")])).bytes
        #expect(unknown.count - known.count == "CFBundleIdentifieR".utf8.count)
    }

    @Test("a key number past the table is damage, not a crash")
    func keyNumberOutOfRange() throws {
        var w = ByteWriter()
        w.u8(8)                                             // dictionary
        w.varint(1)
        w.varint(2 * InfoPlistKeys.all.count + 1)           // one past the last number
        PropertyListValue.bool(true).encode(into: &w)
        #expect(throws: IndexFormatError.self) {
            try w.bytes.withUnsafeBytes { buffer in
                var r = ByteReader(buffer)
                _ = try PropertyListValue.decode(from: &r)
            }
        }
    }
}
