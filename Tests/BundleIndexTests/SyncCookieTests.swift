// `bundleidx sync`'s cookie travels through the watcher's queue; the watcher takes it out of its
// folder before the batch that covers it reads anything, and answers it after the commit. Before,
// it removed the cookie after the commit, which changed the folder's change time once more: a root
// that is itself a bundle, or a folder a bundle's followed link leads to, kept a stale stamp, and
// `verify` reported "1 records differ" after every sync.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Watcher: sync cookies", .serialized, .tags(.slow), .enabled(if: TestPlan.runsSlowSuites, "quick run (tools/test.sh --quick)"))
struct SyncCookieTests {
    @Test("syncs of a root that is itself a bundle leave its records as a build writes them")
    func rootIsABundle() throws {
        let h = try WatcherHarness(["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.a"]), "A.app/x.png": ""],
                                   watching: ["A.app"])
        defer { h.stop() }
        for round in 0..<3 {
            try h.sync("A.app")
            #expect(try h.verify() == [], "after sync \(round + 1)")
        }
        try h.write("A.app/y.png")
        try h.sync("A.app")
        #expect(try h.verify() == [])
        #expect(try h.bundle("A.app")?.rel("y", "png") == "y.png")
    }

    @Test("a sync of a root that a bundle's followed link leads to leaves that bundle's records right")
    func linkIntoARoot() throws {
        let h = try WatcherHarness(["q/Z.app/Info.plist": infoPlist([:]), "r/img.png": ""],
                                   links: ["q/Z.app/Resources": "../../r"], watching: ["q", "r"])
        defer { h.stop() }
        #expect(try h.bundle("q/Z.app")?.rel("img", "png") == "Resources/img.png")
        for round in 0..<2 {
            try h.sync("r")
            #expect(try h.verify() == [], "after sync \(round + 1)")
        }
    }

    @Test("a file linked under a cookie's name is unlinked, never written to")
    func linkedCookieNotWritten() throws {
        let h = try WatcherHarness(["A.app/Info.plist": infoPlist([:])])
        defer { h.stop() }
        let outside = makeTempDirectory(prefix: "cookie-target")
        defer { try? FileManager.default.removeItem(atPath: outside) }
        // Empty, as a cookie is: only its other name tells it from one.
        try "".write(toFile: outside + "/hard", atomically: false, encoding: .utf8)
        try "kept".write(toFile: outside + "/soft", atomically: false, encoding: .utf8)
        #expect(link(outside + "/hard", h.root + "/" + SyncCookie.prefix + "hard") == 0)
        #expect(symlink(outside + "/soft", h.root + "/" + SyncCookie.prefix + "soft") == 0)
        try h.sync()
        for (name, content) in [("hard", ""), ("soft", "kept")] {
            #expect(try String(contentsOfFile: outside + "/" + name, encoding: .utf8) == content, "\(name)")
            #expect(!FileManager.default.fileExists(atPath: h.root + "/" + SyncCookie.prefix + name), "\(name)")
        }
    }
}
