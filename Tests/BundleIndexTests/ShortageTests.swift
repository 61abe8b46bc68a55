// A scan that runs out of descriptors or kernel memory stops with an error; it never takes the
// file or folder it could not open for an unreadable one (docs/reliability.md, "Short of
// descriptors or memory").
import Foundation
import Glibc
import SystemPackage
import Logging
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Reliability: short of descriptors or memory")
struct ShortageTests {
    static let files = [
        "Phone.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.phone"]),
        "Phone.app/fr.lproj/Localizable.strings": "\"hello\" = \"Bonjour\";",
        "Phone.app/icon.png": "",
        // No bundle extension: a bundle because its `Contents` holds an Info.plist.
        "Apps/Thing/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.thing"]),
        "Apps/Thing/Contents/Resources/thing.png": "",
        "Apps/Mail.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.mail"]),
        "Apps/Mail.app/mail.png": "",
    ]

    /// A built fixture whose table now says "Salut" on disk, the index still "Bonjour".
    static func changedFixture() throws -> BundleFixture {
        let f = try BundleFixture(files)
        _ = try f.build()
        try f.add(["Phone.app/fr.lproj/Localizable.strings": "\"hello\" = \"Salut\";"])
        return f
    }

    static func hello(_ f: BundleFixture) throws -> String? {
        try f.reader().bundle(identifier: "com.example.phone", context: .foundationLinux)?
            .localizedStringEntry(forKey: "hello", table: nil, forLocalization: "fr")
    }

    /// Every bundle the fixture's index answers for, by identifier.
    static func identifiers(_ f: BundleFixture) throws -> [String] {
        let reader = try f.reader()
        return try ["com.example.phone", "com.example.thing", "com.example.mail"].filter {
            try reader.bundle(identifier: $0, context: .foundationLinux) != nil
        }
    }

    static func expectShortage(_ error: any Error, _ code: Errno, naming path: String) {
        guard case BundleIndexError.system(let call, let errno) = error else {
            Issue.record("expected a system error, got \(error)")
            return
        }
        #expect(errno == code)
        #expect(call.hasSuffix(path), "\(call)")
    }

    /// `expectShortage` of a call on `folder` or a path below it.
    static func expectShortage(_ error: any Error, _ code: Errno, within folder: String) {
        guard case BundleIndexError.system(let call, let errno) = error else {
            Issue.record("expected a system error, got \(error)")
            return
        }
        #expect(errno == code)
        #expect(call.contains(" " + folder), "\(call)")
    }

    @Test("a strings table that cannot be opened for want of descriptors stops the build; the index keeps its answers",
          arguments: [EMFILE, ENFILE, ENOMEM])
    func tableShortageStopsBuild(code: Int32) throws {
        let f = try Self.changedFixture()
        let table = f.root + "/Phone.app/fr.lproj/Localizable.strings"
        let generation = try f.reader().generation()
        do {
            _ = try FileFaults.failing(at: table, with: code) { try IndexBuilder.build(roots: [f.root], indexPath: f.indexPath) }
            Issue.record("the build succeeded")
        } catch {
            Self.expectShortage(error, Errno(rawValue: code), naming: table)
        }
        // Before: the table was indexed as empty, with the file's stamp: no key until it changed again.
        #expect(try Self.hello(f) == "Bonjour")
        #expect(try f.reader().generation() == generation)
        _ = try f.build()
        #expect(try Self.hello(f) == "Salut")
    }

    @Test("a question asked by path (stat, lstat, realpath, readlink) short of kernel memory stops the build and verify",
          arguments: ["Apps/Thing/Contents", "Apps/Thing/Contents/Resources", "Apps/Thing", "Apps"])
    func statusShortageStopsBuild(folder: String) throws {
        let f = try Self.changedFixture()
        let path = f.root + "/" + folder
        for full in [true, false] {
            do {
                _ = try FileFaults.failing(at: path, with: ENOMEM, call: .status) {
                    try IndexBuilder.build(roots: [f.root], indexPath: f.indexPath, full: full)
                }
                Issue.record("the build succeeded (full: \(full))")
            } catch {
                Self.expectShortage(error, .noMemory, within: path)
            }
        }
        // Before: each question answered as for a path not there, and the build went on: a
        // review's `strace -e inject` of ENOMEM into `readlink` got a bundle indexed without its
        // `Contents/Resources`, exit 0.
        #expect(try Self.hello(f) == "Bonjour")
        #expect(try Self.identifiers(f) == ["com.example.phone", "com.example.thing", "com.example.mail"])
        #expect(throws: BundleIndexError.self) {
            try FileFaults.failing(at: path, with: ENOMEM, call: .status) { try IndexVerifier.verify(indexPath: f.indexPath) }
        }
        _ = try f.build()
        #expect(try Self.hello(f) == "Salut")
        #expect(try f.reader().bundle(identifier: "com.example.thing", context: .foundationLinux)?.rel("thing", "png")
                == "Contents/Resources/thing.png")
    }

    @Test("a root whose stat runs short of kernel memory is no bad input: the shortage is the error")
    func rootStatusShortage() throws {
        let f = try BundleFixture(Self.files)
        do {
            _ = try FileFaults.failing(at: f.root, with: ENOMEM, call: .status) {
                try IndexBuilder.build(roots: [f.root], indexPath: f.indexPath)
            }
            Issue.record("the build succeeded")
        } catch {
            // Before: "no such directory" or "not a directory" (exit 4).
            Self.expectShortage(error, .noMemory, naming: f.root)
        }
    }

    @Test("an Info.plist that cannot be opened for want of descriptors stops the build")
    func infoPlistShortageStopsBuild() throws {
        let f = try BundleFixture(Self.files)
        _ = try f.build()
        let plist = f.root + "/Apps/Mail.app/Info.plist"
        #expect(throws: BundleIndexError.self) {
            try FileFaults.failing(at: plist, with: EMFILE) { try IndexBuilder.build(roots: [f.root], indexPath: f.indexPath, full: true) }
        }
        // Before: an empty Info dictionary, so no identifier.
        #expect(try Self.identifiers(f) == ["com.example.phone", "com.example.thing", "com.example.mail"])
    }

    @Test("folders that cannot be listed for want of descriptors stop the build: a bundle's, a folder of bundles, a bundle's Contents",
          arguments: ["Phone.app/fr.lproj", "Apps", "Apps/Thing/Contents"])
    func listingShortageStopsBuild(folder: String) throws {
        let f = try Self.changedFixture()
        let path = f.root + "/" + folder
        do {
            _ = try FileFaults.failing(at: path, with: EMFILE) { try IndexBuilder.build(roots: [f.root], indexPath: f.indexPath, full: true) }
            Issue.record("the build succeeded")
        } catch {
            Self.expectShortage(error, .tooManyOpenFiles, naming: path)
        }
        // Before: `fr.lproj` and `Apps` were kept as unreadable folders, with a warning, and a
        // bundle whose `Contents` could not be listed was no bundle: removed from the index.
        #expect(try Self.hello(f) == "Bonjour")
        #expect(try Self.identifiers(f) == ["com.example.phone", "com.example.thing", "com.example.mail"])
    }

    @Test("a first build that runs short writes no index of what it could read")
    func firstBuildShortage() throws {
        let f = try BundleFixture(Self.files)
        #expect(throws: BundleIndexError.self) {
            try FileFaults.failing(at: f.root + "/Apps/Mail.app", with: ENFILE) { try IndexBuilder.build(roots: [f.root], indexPath: f.indexPath) }
        }
        #expect(throws: (any Error).self) { _ = try f.reader().bundle(identifier: "com.example.phone", context: .foundationLinux) }
        _ = try f.build()
        #expect(try Self.identifiers(f) == ["com.example.phone", "com.example.thing", "com.example.mail"])
    }

    @Test("many bundles, one table short: the build stops whichever thread reads it")
    func pipelineShortage() throws {
        var files: [String: String] = [:]
        for i in 0..<300 {
            files["B\(i).bundle/Info.plist"] = infoPlist(["CFBundleIdentifier": "com.example.b\(i)"])
            files["B\(i).bundle/en.lproj/Localizable.strings"] = "\"k\" = \"v\(i)\";"
        }
        let f = try BundleFixture(files)
        for victim in [3, 150, 297] {
            let table = f.root + "/B\(victim).bundle/en.lproj/Localizable.strings"
            do {
                _ = try FileFaults.failing(at: table, with: EMFILE) { try IndexBuilder.build(roots: [f.root], indexPath: f.indexPath, full: true) }
                Issue.record("the build succeeded (victim \(victim))")
            } catch {
                Self.expectShortage(error, .tooManyOpenFiles, naming: table)
            }
        }
    }

    @Test("a stamp that cannot be read for want of memory never matches, not even a stored 0 (a dangling link's)")
    func unreadStampNeverMatches() throws {
        let f = try BundleFixture(["X.bundle/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "x"]),
                                   "X.bundle/Contents/Resources/a.txt": ""],
                                  links: ["X.bundle/Contents/Resources/Sub": "../../../outside/Sub"])
        let bundle = f.root + "/X.bundle"
        // What a stamp of a link to nothing holds, and what reading it gives: they match.
        let stamps = [FileStamp(path: "Contents/Resources/Sub", changeTime: 0, inode: 0)]
        #expect(FileStamp.allMatch(stamps, in: bundle))
        // Short of memory: before, the failed read gave 0 as well, and the bundle was kept
        // unchanged by the incremental build's checks ahead of the walk, whose notes nobody asks
        // (review w28: a target that had appeared stayed out of the index).
        FileFaults.failing(at: bundle, with: ENOMEM, call: .status) {
            #expect(!FileStamp.allMatch(stamps, in: bundle))
        }
        FileFaults.failing(at: bundle, with: ENOENT, call: .status) {
            #expect(FileStamp.allMatch(stamps, in: bundle), "a path not there still reads as 0")
        }
    }

    @Test("a watcher whose root's stat or real path runs short does not start; a lookup past a link that runs short stops its catch-up")
    func watcherStartShortage() throws {
        let f = try BundleFixture(["X.bundle/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "x"])],
                                  links: ["X.bundle/Contents/Resources": "../../shared/Resources"])
        try FileManager.default.createDirectory(atPath: f.root + "/shared", withIntermediateDirectories: true)
        _ = try f.build()
        let logger = Logger(label: "test.watch", factory: { _ in SwiftLogNoOpLogHandler() })
        // Before: "no such directory" (exit 4), and a root without a real path was dropped from
        // the watcher's list of them.
        do {
            _ = try FileFaults.failing(at: f.root, with: ENOMEM, call: .status) {
                try IndexWatcher(roots: [f.root], indexPath: f.indexPath, logger: logger)
            }
            Issue.record("the watcher started")
        } catch {
            Self.expectShortage(error, .noMemory, naming: f.root)
        }
        // The stamp lookups of the link out resolve `shared/Resources`, which is missing: the
        // watcher watches `shared` for it to appear. Before, an `lstat` of `shared` short of
        // memory ended the resolution, and no watch waited for the folder.
        let watcher = try IndexWatcher(roots: [f.root], indexPath: f.indexPath, logger: logger)
        do {
            try FileFaults.failing(at: f.root + "/shared", with: ENOMEM, call: .status) { try watcher.catchUp() }
            Issue.record("the catch-up finished")
        } catch {
            Self.expectShortage(error, .noMemory, within: f.root + "/shared")
        }
    }

    @Test("a watcher's batch that runs short commits nothing and stops the watcher with the error")
    func watcherShortage() throws {
        let h = try WatcherHarness(Self.files)
        let table = h.root + "/Phone.app/fr.lproj/Localizable.strings"
        let generation = try IndexReader(path: h.indexPath).generation()
        try FileFaults.failing(at: table, with: EMFILE) {
            try Data("\"hello\" = \"Salut\";".utf8).write(to: URL(fileURLWithPath: table))
            // The loop ends with the batch's error; the sync is never answered.
            #expect(throws: BundleIndexError.self) { try IndexWatcher.sync(root: h.root, timeout: 3) }
        }
        let reader = try IndexReader(path: h.indexPath)
        #expect(try reader.generation() == generation)
        #expect(try reader.bundle(identifier: "com.example.phone", context: .foundationLinux)?
            .localizedStringEntry(forKey: "hello", table: nil, forLocalization: "fr") == "Bonjour")
        h.stopExpectingFailure { error in Self.expectShortage(error, .tooManyOpenFiles, naming: table) }
    }

    @Test("a watcher's batch whose questions by path run short of kernel memory commits nothing")
    func watcherStatusShortage() throws {
        let h = try WatcherHarness(Self.files)
        let folder = h.root + "/Apps/Thing/Contents/Resources/New"
        let generation = try IndexReader(path: h.indexPath).generation()
        try FileFaults.failing(at: h.root + "/Apps/Thing", with: ENOMEM, call: .status) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            FileManager.default.createFile(atPath: folder + "/new.png", contents: Data())
            #expect(throws: BundleIndexError.self) { try IndexWatcher.sync(root: h.root, timeout: 3) }
        }
        // Before: the new folder, asked `lstat` short of memory, was no folder, and the batch
        // committed the bundle without it.
        #expect(try IndexReader(path: h.indexPath).generation() == generation)
        h.stopExpectingFailure { error in Self.expectShortage(error, .noMemory, naming: "") }
    }

    @Test("a folder the watcher cannot list to watch it, for want of descriptors, stops the watcher")
    func watcherWatchShortage() throws {
        let h = try WatcherHarness(Self.files)
        let folder = h.root + "/Plain/Deep"
        // The first listing of `Plain` is the watcher's, to watch it and what is below (on the
        // event); the batch that scans it after lists it again.
        try FileFaults.failing(at: h.root + "/Plain", with: EMFILE, times: 1) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            #expect(throws: BundleIndexError.self) { try IndexWatcher.sync(root: h.root, timeout: 3) }
        }
        // Before: `Plain` was taken for an unreadable folder and `Deep` left without a watch, so
        // a bundle made in it later was never indexed.
        h.stopExpectingFailure { error in Self.expectShortage(error, .tooManyOpenFiles, naming: h.root + "/Plain") }
    }
}
