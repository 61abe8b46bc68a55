// A lookup costs a bounded number of point reads — one per directory of the search pattern —
// that does not grow with the number of bundles, resources or lproj folders (issue 2, item 3).
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Store reads per query")
struct ReadBoundTests {
    /// One bundle of the shape every query below expects; `extra` adds bulk.
    static func bundleFiles(_ name: String, extraFiles: Int, extraLprojs: Int) -> [String: String] {
        var f: [String: String] = [
            "\(name)/Contents/Info.plist": infoPlist(["CFBundleIdentifier": name, "CFBundleDevelopmentRegion": "fr"]),
            "\(name)/Contents/Resources/global.png": "", "\(name)/Contents/Resources/Variants/logo.png": "",
            "\(name)/Contents/Resources/Variants/logo-linux.png": "", "\(name)/Contents/Resources/fr.lproj/only.strings": "",
            "\(name)/Contents/Resources/Base.lproj/Main.nib": "", "\(name)/Contents/Resources/Images/sub.png": "",
            "\(name)/Contents/Resources/en_GB.lproj/gb.txt": "", "\(name)/Contents/Resources/en.lproj/en.txt": "",
        ]
        for i in 0..<extraFiles { f["\(name)/Contents/Resources/bulk\(i).png"] = "" }
        for l in 0..<extraLprojs {
            f["\(name)/Contents/Resources/x\(l).lproj/only.strings"] = ""
            f["\(name)/Contents/Resources/x\(l).lproj/l\(l).txt"] = ""
        }
        return f
    }

    struct Shape: CustomStringConvertible {
        let label: String
        let name: String?
        let type: String?
        let dir: String?
        var description: String { label }
    }

    static let shapes = [
        Shape(label: "global hit", name: "global", type: "png", dir: nil),
        Shape(label: "platform variant", name: "logo", type: "png", dir: "Variants"),
        Shape(label: "lproj hit", name: "only", type: "strings", dir: nil),
        Shape(label: "Base hit", name: "Main", type: "nib", dir: nil),
        Shape(label: "miss", name: "nothing", type: "png", dir: nil),
        Shape(label: "subdirectory", name: "sub", type: "png", dir: "Images"),
        Shape(label: "type only", name: nil, type: "nib", dir: nil),
    ]

    /// foundation-linux searches [fr]; apple with en-GB searches [en_GB, en, fr].
    static let contexts: [(SearchContext, steps: Int)] = [
        (.foundationLinux, 3), (.apple(languages: ["en-GB"]), 5),
    ]

    static func reads(indexSize: (bundles: Int, files: Int, lprojs: Int)) throws -> [String: (Int, Int)] {
        var files: [String: String] = [:]
        for b in 0..<indexSize.bundles {
            files.merge(bundleFiles("B\(b).app", extraFiles: indexSize.files, extraLprojs: indexSize.lprojs)) { a, _ in a }
        }
        let f = try BundleFixture(files)
        var out: [String: (Int, Int)] = [:]
        for (context, _) in contexts {
            let bundle = try f.bundle("B0.app", context: context)
            for s in shapes {
                out[context.profile.rawValue + " " + s.label] = (
                    try bundle.readsForLookup(name: s.name, type: s.type, subdirectory: s.dir),
                    try bundle.readsForListing(type: s.type, subdirectory: s.dir))
            }
        }
        return out
    }

    @Test("reads per query are the same on a small and a large index, and within the search pattern's steps")
    func boundedReads() throws {
        let small = try Self.reads(indexSize: (bundles: 1, files: 0, lprojs: 0))
        let large = try Self.reads(indexSize: (bundles: 40, files: 400, lprojs: 30))
        // One read per step of the pattern (global, S0, Base, S1…Sn): its directory record, which
        // lists the names and the names variants answer (format 13). A lookup by type reads the
        // same directory records and filters their listings.
        for (context, steps) in Self.contexts {
            for s in Self.shapes {
                let label = context.profile.rawValue + " " + s.label
                let (single, listing) = small[label]!
                #expect(single >= 1 && single <= steps, "\(label): \(single) reads")
                #expect(listing <= steps + 1, "\(label): \(listing) reads for the listing")
                #expect(large[label]! == small[label]!, "\(label): \(large[label]!) reads on the large index, \(small[label]!) on the small one")
            }
            #expect(small[context.profile.rawValue + " global hit"]!.0 == 1, "a global hit is one read")
            #expect(small[context.profile.rawValue + " subdirectory"]!.0 == 1, "a hit in a subdirectory is one read")
            #expect(small[context.profile.rawValue + " platform variant"]!.0 == 1,
                    "a hit among variants is one read: the directory record lists the variant names")
            #expect(small[context.profile.rawValue + " miss"]!.0 == steps, "a miss reads every step once")
        }
    }

    @Test("a miss reads only the search steps whose lproj folder exists")
    func missReadsExistingSteps() throws {
        let f = try BundleFixture([
            "Bare.app/Info.plist": infoPlist(["CFBundleIdentifier": "bare", "CFBundleDevelopmentRegion": "fr"]),
            "Bare.app/a.txt": "",
            "Full.app/Info.plist": infoPlist(["CFBundleIdentifier": "full", "CFBundleDevelopmentRegion": "fr"]),
            "Full.app/fr.lproj/f.txt": "", "Full.app/Base.lproj/b.txt": "", "Full.app/Sub/s.txt": "",
        ])
        let bare = try f.bundle("Bare.app")
        #expect(try bare.readsForLookup(name: "nothing", type: "txt", subdirectory: nil) == 1)
        // No folder Sub: the bundle record's directory marks say so, and nothing is read.
        #expect(try bare.readsForLookup(name: "nothing", type: "txt", subdirectory: "Sub") == 0)
        let full = try f.bundle("Full.app")
        #expect(try full.readsForLookup(name: "nothing", type: "txt", subdirectory: nil) == 3)
        // Sub is read; fr.lproj/Sub and Base.lproj/Sub do not exist and are not.
        #expect(try full.readsForLookup(name: "nothing", type: "txt", subdirectory: "Sub") == 1)
        #expect(try full.rel("s", "txt", dir: "Sub") == "Sub/s.txt")
        #expect(try full.rel("b", "txt") == "Base.lproj/b.txt")
        #expect(try full.rel("f", "txt") == "fr.lproj/f.txt")
    }

    @Test("a folder the bundle lacks is not read, and a bundle opened before a commit that adds it finds it")
    func directoryMarksFollowCommits() throws {
        let f = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "a", "CFBundleDevelopmentRegion": "fr"]),
            "A.app/a.txt": "", "A.app/fr.lproj/f.txt": "",
        ])
        let bundle = try f.bundle("A.app")
        for localization in [ResourceLookup.Localization.unspecified, .given("fr")] {
            #expect(try bundle.readsForLookup(name: "s", type: "txt", subdirectory: "Sub", localization: localization) == 0)
        }
        #expect(try bundle.path(forResource: "s", ofType: "txt", inDirectory: "Sub") == nil)
        #expect(try bundle.path(forResource: "s", ofType: "txt", inDirectory: "Sub", forLocalization: "fr") == nil)
        try f.add(["A.app/Sub/s.txt": "", "A.app/fr.lproj/Sub/t.txt": ""])
        try f.build()
        // The bundle keeps the marks of the commit it was opened in; in a later one it reads.
        #expect(try bundle.path(forResource: "s", ofType: "txt", inDirectory: "Sub") == f.root + "/A.app/Sub/s.txt")
        #expect(try bundle.path(forResource: "t", ofType: "txt", inDirectory: "Sub") == f.root + "/A.app/fr.lproj/Sub/t.txt")
        #expect(try bundle.path(forResource: "t", ofType: "txt", inDirectory: "Sub", forLocalization: "fr")
                == f.root + "/A.app/fr.lproj/Sub/t.txt")
        #expect(try bundle.paths(forResourcesOfType: "txt", inDirectory: "Sub").count == 2)
        // Opened again, it has the new commit's marks: both folders are read, no other.
        let again = try f.bundle("A.app")
        #expect(try again.readsForLookup(name: "nothing", type: "txt", subdirectory: "Sub") == 2)
        #expect(try again.readsForLookup(name: "nothing", type: "txt", subdirectory: "Other") == 0)
        // A listing by type reads the same folders (the general lookup asks the marks too).
        #expect(try again.readsForListing(type: "txt", subdirectory: "Sub") == 2)
        #expect(try again.readsForListing(type: "txt", subdirectory: "Other") == 0)
        #expect(try again.paths(forResourcesOfType: "txt", inDirectory: "Sub").count == 2)
        #expect(try again.rel("s", "txt", dir: "Sub") == "Sub/s.txt")
    }

    @Test("verify reports a bundle record whose directory marks do not match its directories")
    func verifyChecksMarks() throws {
        let f = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "a"]), "A.app/Sub/s.txt": "", "A.app/t.txt": "",
        ])
        try f.build()
        #expect(try IndexVerifier.verify(indexPath: f.indexPath, roots: [f.root]) == [])
        let store = try IndexStore.openForWriting(path: f.indexPath)
        try store.write { writer in
            let a = try #require(try writer.bundleRecord(path: f.root + "/A.app"))
            let unmarked = BundleRecord(id: a.id, path: a.path, layout: a.layout, infoPlists: a.infoPlists, lprojs: a.lprojs,
                                        warnings: a.warnings, root: a.root, scannedAt: a.scannedAt, stamps: a.stamps,
                                        directoryMarks: DirectoryMarks(hashes: [Hashing.directory("")]))
            try writer.txn.put(store.bundles, key: Array(a.path.utf8), value: unmarked.encode())
        }
        #expect(try IndexVerifier.verify(indexPath: f.indexPath, roots: [f.root]).map(\.detail)
                == ["directory marks differ from the bundle's directories"])
        // The lookups the wrong marks hide: Sub is not read.
        #expect(try f.bundle("A.app").path(forResource: "s", ofType: "txt", inDirectory: "Sub") == nil)
        // A full build puts it right (an incremental one finds nothing changed on disk).
        _ = try IndexBuilder.build(roots: [f.root], indexPath: f.indexPath, full: true)
        #expect(try IndexVerifier.verify(indexPath: f.indexPath, roots: [f.root]) == [])
        #expect(try f.bundle("A.app").rel("s", "txt", dir: "Sub") == "Sub/s.txt")
    }

    @Test("version-0 bundles at most double the reads (root fallback)")
    func fallbackBound() throws {
        let f = try BundleFixture(["Old.bundle/Resources/Info.plist": infoPlist(["CFBundleIdentifier": "old"]),
                                   "Old.bundle/Resources/a.txt": "", "Old.bundle/top.txt": ""])
        let b = try f.bundle("Old.bundle")
        #expect(try b.readsForLookup(name: "top", type: "txt", subdirectory: nil) <= 2 * 3)
        #expect(try b.rel("top", "txt") == "top.txt")
    }

    @Test("a version-0 miss reads the root's steps only where the root's listing, or in a subdirectory the directory marks, allow them")
    func fallbackReadsListedRootSteps() throws {
        let f = try BundleFixture([
            "Old.bundle/Resources/Info.plist": infoPlist(["CFBundleIdentifier": "old", "CFBundleDevelopmentRegion": "fr"]),
            "Old.bundle/Resources/a.txt": "", "Old.bundle/Resources/fr.lproj/f.txt": "",
            "Old.bundle/top.txt": "", "Old.bundle/Base.lproj/b.txt": "",
            "Two.bundle/Resources/Info.plist": infoPlist(["CFBundleIdentifier": "two", "CFBundleDevelopmentRegion": "fr"]),
            "Two.bundle/Base.lproj/Sub/s.txt": "", "Two.bundle/Sub/t.txt": "",
        ])
        // The root's Base.lproj/Sub and Sub, found through the marks: Resources/Sub and
        // Resources/fr.lproj/Sub do not exist, nor does the root's fr.lproj.
        let two = try f.bundle("Two.bundle")
        #expect(try two.readsForLookup(name: "s", type: "txt", subdirectory: "Sub") == 2)
        #expect(try two.rel("s", "txt", dir: "Sub") == "Base.lproj/Sub/s.txt")
        #expect(try two.rel("t", "txt", dir: "Sub") == "Sub/t.txt")
        #expect(try two.rel("u", "txt", dir: "Sub") == nil)
        let b = try f.bundle("Old.bundle")
        // Resources and Resources/fr.lproj; then the root's listing (once per transaction) and
        // the root's Base.lproj. The root lists no fr.lproj and no entry starting with
        // "nothing": neither is read.
        #expect(try b.readsForLookup(name: "nothing", type: "txt", subdirectory: nil) == 2 + 1 + 1)
        #expect(try b.readsForLookup(name: "nothing", type: "txt", subdirectory: nil) == 2 + 1)
        // In a subdirectory, in the commit the bundle was opened in, the directory marks
        // decide: the bundle has no folder Sub anywhere, and nothing is read.
        #expect(try b.readsForLookup(name: "nothing", type: "txt", subdirectory: "Sub") == 0)
        #expect(try b.readsForLookup(name: "top", type: "txt", subdirectory: nil) == 2 + 1)
        #expect(try b.rel("top", "txt") == "top.txt")
        #expect(try b.rel("b", "txt") == "Base.lproj/b.txt")
        #expect(try b.rel("nothing", "txt") == nil)

        // After a commit, the marks may be out of date: the root's listing decides, read again
        // in the new transaction; so does the resource folder's, for which lproj folders exist
        // now (`SearchPlan.resourceBase(in:)`), once.
        try f.add(["Other.bundle/Resources/o.txt": ""])
        try f.build()
        #expect(try b.readsForLookup(name: "nothing", type: "txt", subdirectory: nil) == 1 + 2 + 1 + 1)
        // The root lists no "Sub": of its steps only Base.lproj/Sub is read.
        #expect(try b.readsForLookup(name: "nothing", type: "txt", subdirectory: "Sub") == 2 + 1)
        // A name a root entry starts with: the root is read.
        #expect(try b.readsForLookup(name: "top", type: "txt", subdirectory: nil) == 2 + 1)
        #expect(try b.rel("top", "txt") == "top.txt")
        #expect(try b.rel("b", "txt") == "Base.lproj/b.txt")
        #expect(try b.rel("nothing", "txt") == nil)
    }
}
