// Repeat asks answered from memory (AnswerCache) must never outlive the index state they were
// read in: the next lookup after any commit reads the index again.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Answer cache (repeat asks)")
struct AnswerCacheTests {
    /// A.app with `gone.txt` and `en.lproj/l.txt`, indexed; the bundle and its path.
    static func appFixture() throws -> (BundleFixture, IndexedBundle, root: String) {
        let fixture = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.a", "CFBundleDevelopmentRegion": "en"]),
            "A.app/gone.txt": "", "A.app/en.lproj/l.txt": "",
        ])
        return (fixture, try fixture.bundle("A.app"), fixture.root + "/A.app")
    }

    @Test("a repeated path lookup is answered from memory, and the first lookup after a rebuild reads the new index")
    func followsRebuilds() throws {
        let (fixture, bundle, root) = try Self.appFixture()
        for _ in 0..<2 {
            #expect(try bundle.path(forResource: "gone", ofType: "txt") == root + "/gone.txt")
            #expect(try bundle.path(forResource: "new", ofType: "txt") == nil)
            #expect(try bundle.path(forResource: "l", ofType: "txt", inDirectory: nil, forLocalization: "en")
                    == root + "/en.lproj/l.txt")
        }
        // The answers were kept, a miss too, for the newest transaction.
        let newest = bundle.reader.store.environment.newestTransactionID()
        #expect(bundle.plan.answers.kept("gone", "txt", newest: newest) == .some(root + "/gone.txt"))
        #expect(bundle.plan.answers.kept("new", "txt", newest: newest) == .some(nil))
        // forLocalization: is part of the question: the same name without it is not answered.
        #expect(bundle.plan.answers.kept("l", "txt", localization: .some(nil), newest: newest) == nil)

        try FileManager.default.removeItem(atPath: root + "/gone.txt")
        try FileManager.default.removeItem(atPath: root + "/en.lproj/l.txt")
        try fixture.add(["A.app/new.txt": ""])
        try fixture.build()
        // The same IndexedBundle, not reopened.
        #expect(bundle.reader.store.environment.newestTransactionID() > newest)
        #expect(try bundle.path(forResource: "gone", ofType: "txt") == nil)
        #expect(try bundle.path(forResource: "new", ofType: "txt") == root + "/new.txt")
        #expect(try bundle.path(forResource: "l", ofType: "txt", inDirectory: nil, forLocalization: "en") == nil)
    }

    @Test("an answer read from the index is kept at its first ask; one the kept directory tables give, at its second")
    func keptWhenWorthIt() throws {
        let (fixture, bundle, root) = try Self.appFixture()
        var newest = bundle.reader.store.environment.newestTransactionID()
        // Nothing kept yet: the first ask reads the index, and its answer is kept.
        #expect(try bundle.path(forResource: "gone", ofType: "txt") == root + "/gone.txt")
        #expect(bundle.plan.answers.kept("gone", "txt", newest: newest) == .some(root + "/gone.txt"))
        // Once the folders a lookup reads are kept (each read twice), an answer costs no read:
        // it is kept from its query's second ask.
        for name in ["x", "y", "z"] { #expect(try bundle.path(forResource: name, ofType: "txt") == nil) }
        #expect(try DirectoryTablesTests.reads(bundle, "w", "txt", nil) == 0)
        for _ in 0..<2 {
            #expect(try bundle.path(forResource: "l", ofType: "txt") == root + "/en.lproj/l.txt")
            #expect(try bundle.path(forResource: "w", ofType: "txt") == nil)
        }
        #expect(bundle.plan.answers.kept("l", "txt", newest: newest) == .some(root + "/en.lproj/l.txt"))
        #expect(bundle.plan.answers.kept("w", "txt", newest: newest) == .some(nil))
        #expect(try bundle.path(forResource: "v", ofType: "txt") == nil)
        #expect(bundle.plan.answers.kept("v", "txt", newest: newest) == nil, "from the tables, asked once: not kept")
        // A commit starts again: the tables are stale, the next ask reads the index.
        try fixture.add(["A.app/v.txt": ""])
        try fixture.build()
        newest = bundle.reader.store.environment.newestTransactionID()
        #expect(try bundle.path(forResource: "v", ofType: "txt") == root + "/v.txt")
        #expect(bundle.plan.answers.kept("v", "txt", newest: newest) == .some(root + "/v.txt"))
    }

    @Test("names that differ only in Unicode normalisation are two queries, as for CF (L-byte-names)")
    func byteNames() throws {
        let fixture = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.a", "CFBundleDevelopmentRegion": "en"]),
            "A.app/caf\u{E9}.txt": "",
        ])
        // Added on its own: a Swift dictionary takes both spellings for one key.
        try fixture.add(["A.app/cafe\u{301}.txt": ""])
        let bundle = try fixture.bundle("A.app")
        let root = fixture.root + "/A.app/"
        for _ in 0..<2 {   // the first ask of each reads the index, the second is remembered
            #expect(try bundle.path(forResource: "caf\u{E9}", ofType: "txt").map { Array($0.utf8) } == Array((root + "caf\u{E9}.txt").utf8))
            #expect(try bundle.path(forResource: "cafe\u{301}", ofType: "txt").map { Array($0.utf8) } == Array((root + "cafe\u{301}.txt").utf8))
        }
        let cache = AnswerCache()
        cache.keep("/composed", "caf\u{E9}", transaction: 1)
        cache.keep("/plain", "a", transaction: 1)
        #expect(cache.kept("caf\u{E9}", newest: 1) == .some("/composed"))
        #expect(cache.kept("cafe\u{301}", newest: 1) == nil)
        #expect(cache.kept("a", localization: .some(nil), newest: 1) == nil)
        #expect(QueryKey(name: "a", type: nil, subdirectory: nil, localization: .none).digest
                != QueryKey(name: "a", type: nil, subdirectory: nil, localization: .some(nil)).digest)
        #expect(QueryKey(name: "ab", type: nil, subdirectory: nil, localization: .none).digest
                != QueryKey(name: "a", type: "b", subdirectory: nil, localization: .none).digest)
    }

    @Test("every kept answer is found again, by all of its parts, past the few compared in turn")
    func manyAnswers() {
        let cache = AnswerCache()
        for i in 0..<300 {
            cache.keep(i % 7 == 0 ? nil : "/p/\(i)", "n\(i % 50)", "t\(i / 50)", transaction: 3)
        }
        for i in 0..<300 {
            #expect(cache.kept("n\(i % 50)", "t\(i / 50)", newest: 3) == .some(i % 7 == 0 ? nil : "/p/\(i)"))
            #expect(cache.kept("n\(i % 50)", "t\(i / 50)", subdirectory: "d", newest: 3) == nil)
        }
        #expect(cache.kept("n0", "t6", newest: 3) == nil)
        // A second store of a kept query (two threads that both read it) keeps the first.
        cache.keep("/other", "n1", "t0", transaction: 3)
        #expect(cache.kept("n1", "t0", newest: 3) == .some("/p/1"))
    }

    @Test("the cache holds a bounded number of answers")
    func bounded() {
        let cache = AnswerCache()
        for i in 0..<(AnswerCache.capacity + 10) {
            cache.keep("/p/\(i)", "n\(i)", transaction: 7)
        }
        #expect(cache.kept("n\(AnswerCache.capacity + 9)", newest: 7) == .some("/p/\(AnswerCache.capacity + 9)"))
        #expect(cache.kept("n0", newest: 7) == nil, "started again empty when full")
        // Another transaction sees nothing; an older answer does not replace newer ones.
        #expect(cache.kept("n\(AnswerCache.capacity + 9)", newest: 8) == nil)
        cache.keep("/old", "n1", transaction: 6)
        #expect(cache.kept("n1", newest: 6) == nil)
        #expect(cache.kept("n\(AnswerCache.capacity + 9)", newest: 7) != nil)
    }

    @Test("the localized Info dictionary is kept until the next commit, its absence too")
    func localizedInfoFollowsRebuilds() throws {
        let fixture = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.a", "CFBundleDevelopmentRegion": "en",
                                           "CFBundleName": "Plain"]),
        ])
        let bundle = try fixture.bundle("A.app")
        #expect(try bundle.object(forInfoDictionaryKey: "CFBundleName") == .string("Plain"))
        let newest = bundle.reader.store.environment.newestTransactionID()
        #expect(bundle.plan.localizedInfo.value(newest: newest) == .some(nil), "no InfoPlist.strings, remembered")
        try fixture.add(["A.app/en.lproj/InfoPlist.strings": "CFBundleName = \"Localized\";"])
        try fixture.build()
        #expect(try bundle.object(forInfoDictionaryKey: "CFBundleName") == .string("Localized"))
        #expect(try bundle.localizedInfoDictionary() == ["CFBundleName": .string("Localized")])
        let memo = TransactionMemo<Int?>()
        memo.store(nil, transaction: 3)
        #expect(memo.value(newest: 3) == .some(nil) && memo.value(newest: 4) == nil)
        memo.store(5, transaction: 2)
        #expect(memo.value(newest: 3) == .some(nil), "an older value does not replace a newer one")
    }

    @Test("a bundle opened again by path before the next commit is the one opened first; after it, a new one")
    func reopenedBundles() throws {
        let composed = "Caf\u{E9}.app", decomposed = "Cafe\u{301}.app"
        let fixture = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.a", "CFBundleDevelopmentRegion": "en"]),
            "A.app/a.txt": "",
            composed + "/Info.plist": infoPlist(["CFBundleIdentifier": "composed"]),
        ])
        // Not in the same dictionary literal: as Swift String keys the two names are one.
        try fixture.add([decomposed + "/Info.plist": infoPlist(["CFBundleIdentifier": "decomposed"])])
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: fixture.root).map { Array($0.utf8) }).count == 3)
        try fixture.build()
        let reader = try fixture.reader()
        let first = try #require(try reader.bundle(atPath: fixture.root + "/A.app", context: .foundationLinux))
        let again = try #require(try reader.bundle(atPath: fixture.root + "/A.app", context: .foundationLinux))
        #expect(first.plan === again.plan)
        let apple = try #require(try reader.bundle(atPath: fixture.root + "/A.app", context: .apple(languages: ["fr"])))
        #expect(apple.plan !== first.plan && apple.context == .apple(languages: ["fr"]))
        // Spellings Swift's String calls equal are two folders, two bundles.
        #expect(composed == decomposed)
        #expect(try reader.bundle(atPath: fixture.root + "/" + composed)?.bundleIdentifier == "composed")
        #expect(try reader.bundle(atPath: fixture.root + "/" + decomposed)?.bundleIdentifier == "decomposed")
        #expect(try reader.bundle(atPath: fixture.root + "/" + composed)?.bundleIdentifier == "composed")

        try fixture.add(["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.changed"]), "A.app/b.txt": ""])
        try fixture.build()
        let after = try #require(try reader.bundle(atPath: fixture.root + "/A.app", context: .foundationLinux))
        #expect(after.plan !== first.plan && after.bundleIdentifier == "com.example.changed")
        #expect(try after.path(forResource: "b", ofType: "txt") == fixture.root + "/A.app/b.txt")
    }
}

extension AnswerCache {
    /// The answer kept for a query, its key made as `IndexedBundle` makes it.
    func kept(_ name: String?, _ type: String? = nil, subdirectory: String? = nil, localization: String?? = .none,
              newest: UInt64) -> String?? {
        answer(QueryKey(name: name, type: type, subdirectory: subdirectory, localization: localization),
               name: name, type: type, subdirectory: subdirectory, localization: localization, newest: newest)
    }

    func keep(_ answer: String?, _ name: String?, _ type: String? = nil, transaction: UInt64) {
        store(answer, for: QueryKey(name: name, type: type, subdirectory: nil, localization: .none),
              name: name, type: type, subdirectory: nil, localization: .none, transaction: transaction)
    }
}

@Suite("Search step flags")
struct StepFlagsTests {
    @Test("each step keeps its own flag, and a step past the 64th may always exist")
    func flags() {
        let pattern = (0..<70).map { $0 % 3 == 0 }
        let flags = StepFlags(pattern)
        #expect((0..<64).allSatisfy { flags[$0] == pattern[$0] })
        #expect((64..<70).allSatisfy { flags[$0] })
        #expect(!StepFlags([true, false])[1] && StepFlags([true, false])[0])
    }
}
