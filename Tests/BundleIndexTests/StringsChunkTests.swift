// Strings tables stored by table (docs/index-format.md, "strings tables"): a table record, and
// for a table too large for it, chunks of entries in hash order that cover every hash — and the
// lookups that keep what they read of a table for the next keys.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Strings tables stored by table")
struct StringsChunkTests {
    /// The upper hash a chunk key ends with.
    static func upper(_ key: [UInt8]) -> UInt64 { key.suffix(8).reduce(0) { $0 << 8 | UInt64($1) } }

    @Test("a table larger than a chunk is cut into chunks that cover every hash, each at most a chunk's size unless one entry is larger")
    func chunksCoverEveryHash() throws {
        let huge = String(repeating: "x", count: 3 * StringsRecords.chunkBytes)
        let entries = (0..<500).map { StringsTable.Entry(key: "key \($0)", value: "value \($0)") } + [StringsTable.Entry(key: "huge", value: huge)]
        let big = StringsTable(path: "fr.lproj/Big.strings", changeTime: 7, content: .entries(StringsTable.Entries(entries)))
        let small = StringsTable(path: "Small.strings", changeTime: 8, content: .entries(StringsTable.Entries([.init(key: "a", value: "b")])))
        let records = try StringsRecords.make(bundleID: 3, bundlePath: "/B.app", tables: [big, small])
        #expect(records.map(\.key) == records.map(\.key).sorted { $0.lexicographicallyPrecedes($1) })
        #expect(records.allSatisfy { $0.key.starts(with: ResourceKey.bundlePrefix(3)) })

        let ref = StringsKey.Table(big.path), tableKey = StringsKey.table(bundle: 3, ref).bytes
        let own = records.filter { $0.key.starts(with: tableKey) }
        #expect(own.first?.key == tableKey, "the table record comes before its chunks")
        let head = try #require(own.first).value.withUnsafeBytes { try StringsRecords.head($0, ref) }
        guard case .chunked = head else { Issue.record("a large table's record holds no entries: \(head)"); return }
        let chunks = try own.dropFirst().map { record in
            #expect(record.key.count == 20)
            return try record.value.withUnsafeBytes { try StringsRecords.chunk($0, upper: Self.upper(record.key)) }
        }
        #expect(chunks.count > 5)
        #expect(chunks.first?.lower == 0 && chunks.last?.upper == .max)
        for (a, b) in zip(chunks, chunks.dropFirst()) { #expect(b.lower == a.upper &+ 1) }
        #expect(chunks.map(\.count).reduce(0, +) == entries.count)
        // Only the chunk holding the huge entry is larger than a chunk, and it holds nothing else.
        for (record, chunk) in zip(own.dropFirst(), chunks) where record.value.count > StringsRecords.chunkBytes + 12 {
            #expect(chunk.count == 1 && record.value.count > huge.utf8.count)
        }
        for e in entries {
            let (hash, check) = e.key.withUTF8Bytes { ref.entry(UnsafeRawBufferPointer($0)) }
            let holding = chunks.filter { $0.covers(hash) }
            #expect(holding.count == 1)
            #expect(holding.first?.value(hash: hash, check: check) == e.value)
            #expect(holding.first?.value(hash: hash, check: check &+ 1) == nil, "another key's check")
        }

        let smallRef = StringsKey.Table(small.path)
        let smallRecords = records.filter { $0.key.starts(with: StringsKey.table(bundle: 3, smallRef).bytes) }
        #expect(smallRecords.count == 1, "a small table is one record")
        guard case .entries(let inline) = try smallRecords[0].value.withUnsafeBytes({ try StringsRecords.head($0, smallRef) }) else {
            Issue.record("a small table's record holds its entries"); return
        }
        #expect(inline.covers(0) && inline.covers(.max) && inline.count == 1)
    }

    @Test("a small table whose record is the index's last is found: the cursor steps back from the end")
    func lastRecord() throws {
        let fixture = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.a", "CFBundleDevelopmentRegion": "en"]),
            "A.app/en.lproj/Localizable.strings": "\"k\" = \"v\";\n",
        ])
        let a = try fixture.bundle("A.app")
        #expect(try fixture.reader().storageUse().first { $0.database == "strings" && $0.kind == "all" }?.entries == 1)
        #expect(try a.localizedStringEntry(forKey: "k", table: nil) == "v")
        #expect(try a.localizedStringEntry(forKey: "other", table: nil) == nil)
        #expect(try a.localizedStringEntry(forKey: "k", table: nil, forLocalization: "en") == "v")
    }

    @Test("a key not asked yet of a table asked before is answered from the entries that ask read")
    func newKeyFromKeptEntries() throws {
        let words = try wordsFixture().bundle("Words.app")
        let plan = words.plan
        func newest() -> UInt64 { words.reader.store.environment.newestTransactionID() }
        #expect(plan.strings.answer(table: "Four", key: "k2", transaction: newest()) == nil, "nothing read yet")
        #expect(try words.localizedStringEntry(forKey: "k1", table: "Four") == "four 1")
        // A small table: its record held every entry.
        #expect(plan.strings.answer(table: "Four", key: "k2", transaction: newest()) == .some("four 2"))
        #expect(plan.strings.answer(table: "Four", key: "k9", transaction: newest()) == .some(nil))
        // A chunked table: its first ask reads the key's chunk in place and keeps nothing; the
        // next key reads the whole table, and then every key is known.
        #expect(try words.localizedStringEntry(forKey: "k1", table: "Many") == "many 1")
        #expect((2...300).allSatisfy { plan.strings.answer(table: "Many", key: "k\($0)", transaction: newest()) == nil })
        #expect(try words.localizedStringEntry(forKey: "k2", table: "Many") == "many 2")
        for k in 1...300 { #expect(plan.strings.answer(table: "Many", key: "k\(k)", transaction: newest()) == .some("many \(k)")) }
        #expect(plan.strings.answer(table: "Many", key: "k301", transaction: newest()) == .some(nil))
        // Nothing kept is handed out for another transaction.
        #expect(plan.strings.answer(table: "Many", key: "k2", transaction: newest() + 1) == nil)
    }

    @Test("the entries a bundle keeps stay bounded: past the limit, every table's kept entries are dropped")
    func keptEntriesBounded() throws {
        // Two tables of ~600 KB each: together over `entryCapacity` (1 MiB).
        let entries = (0..<600).map { StringsTable.Entry(key: "k\($0)", value: String(repeating: "v", count: 1000)) }
        func chunks(_ path: String) throws -> (StringsKey.Table, [StringsEntries]) {
            let table = StringsTable(path: path, changeTime: 1, content: .entries(StringsTable.Entries(entries)))
            let records = try StringsRecords.make(bundleID: 1, bundlePath: "/B.app", tables: [table])
            return (StringsKey.Table(path), try records.dropFirst().map { r in
                try r.value.withUnsafeBytes { try StringsRecords.chunk($0, upper: Self.upper(r.key)) }
            })
        }
        let (a, aChunks) = try chunks("A.strings"), (b, bChunks) = try chunks("B.strings")
        #expect(aChunks.map(\.memoryBytes).reduce(0, +) * 2 > LocalizedStringMemo.entryCapacity)
        let (hash, check) = "k1".withUTF8Bytes { a.entry(UnsafeRawBufferPointer($0)) }
        let memo = LocalizedStringMemo()
        memo.remember(aChunks, of: a, transaction: 5)
        guard case .known(.found(let value)) = memo.entries(of: a, hash: hash, check: check, transaction: 5) else {
            Issue.record("table A's entries are kept"); return
        }
        #expect(value == entries[1].value)
        memo.remember(bChunks, of: b, transaction: 5)
        guard case .unknownTable = memo.entries(of: a, hash: hash, check: check, transaction: 5) else {
            Issue.record("table A's entries were dropped to make room for B's"); return
        }
    }

    @Test("a new key of a table asked before a build's commit is answered from the new table")
    func newKeyAfterCommit() throws {
        let fixture = try wordsFixture()
        let words = try fixture.bundle("Words.app")
        for k in [1, 150, 300] { #expect(try words.localizedStringEntry(forKey: "k\(k)", table: "Many") == "many \(k)") }
        #expect(try words.localizedStringEntry(forKey: "k1", table: "Four") == "four 1")
        try fixture.add([
            "Words.app/fr.lproj/Many.strings": (1...301).map { "\"k\($0)\" = \"\($0 % 2 == 0 ? "changed" : "many") \($0)\";\n" }.joined(),
            "Words.app/fr.lproj/Four.strings": (1...4).map { "\"k\($0)\" = \"new four \($0)\";\n" }.joined(),
        ])
        try fixture.build()
        for k in [2, 151, 299] { #expect(try words.localizedStringEntry(forKey: "k\(k)", table: "Many") == (k % 2 == 0 ? "changed \(k)" : "many \(k)")) }
        #expect(try words.localizedStringEntry(forKey: "k301", table: "Many") == "many 301")
        #expect(try words.localizedStringEntry(forKey: "k2", table: "Four") == "new four 2")
    }
}
