// Repeated batch lines (docs/batch.md, "Repeated lines"): a line asked again before the next
// commit gets the bytes it got before; the first line after a commit reads the index as it is
// then; the tables behind it compare bytes, not Swift strings.
import Foundation
import Synchronization
import Testing
@testable import BundleIndex
@testable import BundleIndexCore
@testable import BundleIndexJSON

@Suite("Batch repeated lines")
struct BatchRepeatTests {
    @Test("a repeated line is answered from memory until the next commit; the first line after a build sees the change")
    func followsCommits() throws {
        let fixture = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.a", "CFBundleDevelopmentRegion": "en",
                                           "Colour": "red"]),
            "A.app/gone.txt": "", "A.app/en.lproj/l.txt": "",
        ])
        try fixture.build()
        let engine = BatchQueryEngine(reader: try fixture.reader(), profile: .foundationLinux)
        let root = fixture.root + "/A.app"
        let lines = [
            #"{"bundle":"com.example.a","op":"path","name":"gone","type":"txt"}"#,
            #"{"bundle":"com.example.a","op":"path","name":"new","type":"txt"}"#,
            #"{"bundle":"com.example.a","op":"path","name":"l","type":"txt","loc":"en"}"#,
            #"{"bundle":"com.example.a","op":"paths","type":"txt"}"#,
            #"{"bundle":"com.example.a","op":"info","key":"Colour"}"#,
            #"{"bundle":"com.example.a","op":"localizations"}"#,
            #"{"bundle":"\#(fixture.root)/B.app","op":"bundlePath"}"#,
        ]
        let before = [
            #""\#(root)/gone.txt""#, "null", #""\#(root)/en.lproj/l.txt""#,
            #"["\#(root)/gone.txt","\#(root)/en.lproj/l.txt"]"#,
            #"{"hasLocalizedDict":false,"info":"red","localized":null,"object":"red"}"#, #"["en"]"#,
            #"{"error":"bundle not in the index: \#(fixture.root)/B.app"}"#,
        ]
        #expect(lines.map(engine.answer(jsonLine:)) == before)
        // Every answer but the error is kept, and asked again it is the same.
        #expect(engine.answers.count.lines == lines.count - 1)
        #expect(lines.map(engine.answer(jsonLine:)) == before)
        #expect(engine.answers.count.lines == lines.count - 1)

        try FileManager.default.removeItem(atPath: root + "/gone.txt")
        try FileManager.default.removeItem(atPath: root + "/en.lproj/l.txt")
        try fixture.add([
            "A.app/new.txt": "", "A.app/fr.lproj/l.txt": "",
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.a", "CFBundleDevelopmentRegion": "en",
                                           "Colour": "blue"]),
            "B.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.b"]),
        ])
        try fixture.build()
        // In the order Foundation lists the folder (readdir), as a bundle opened now says.
        let localizations = try #require(try fixture.reader().bundle("com.example.a", context: .foundationLinux)).localizations
        #expect(Set(localizations) == ["en", "fr"])
        let after = [
            "null", #""\#(root)/new.txt""#, "null", #"["\#(root)/new.txt"]"#,
            #"{"hasLocalizedDict":false,"info":"blue","localized":null,"object":"blue"}"#,
            "[" + localizations.map { "\"\($0)\"" }.joined(separator: ",") + "]",
            #""\#(fixture.root)/B.app""#,
        ]
        #expect(lines.map(engine.answer(jsonLine:)) == after)
        #expect(engine.answers.count.lines == lines.count)
    }

    @Test("a request spelled otherwise gets the answer its first spelling got; requests that differ do not")
    func requestSpellings() throws {
        let fixture = try BundleFixture([
            "A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.a", "CFBundleDevelopmentRegion": "en"]),
            "A.app/en.lproj/l.txt": "",
        ])
        try fixture.build()
        let engine = BatchQueryEngine(reader: try fixture.reader(), profile: .foundationLinux)
        let found = #""\#(fixture.root)/A.app/en.lproj/l.txt""#
        let spellings = [
            #"{"bundle":"com.example.a","op":"path","name":"l","type":"txt"}"#,
            #"{ "type" : "txt", "name" : "l", "op" : "path", "bundle" : "com.example.a" }"#,
            #"{"bundle":"com.example.a","op":"path","name":"\u006c","type":"txt","id":17}"#,
            #"{"bundle":"com.example.a","op":"path","name":"x","name":"l","type":"txt","dir":null}"#,
        ]
        #expect(spellings.map(engine.answer(jsonLine:)) == Array(repeating: found, count: spellings.count))
        #expect(engine.answers.count == (lines: 4, requests: 1))
        // "loc": null asks the forLocalization: form (global resources only): another request.
        #expect(engine.answer(jsonLine: #"{"bundle":"com.example.a","op":"path","name":"l","type":"txt","loc":null}"#) == "null")
        #expect(engine.answer(jsonLine: #"{"bundle":"com.example.a","op":"path","name":"l","type":"txt","loc":"en"}"#) == found)
        #expect(engine.answer(jsonLine: #"{"bundle":"com.example.a","op":"url","name":"l","type":"txt"}"#)
                == #"{"isDir":false,"path":\#(found)}"#)
        #expect(engine.answers.count == (lines: 7, requests: 4))
        try FileManager.default.removeItem(atPath: fixture.root + "/A.app/en.lproj/l.txt")
        try fixture.build()
        #expect(spellings.reversed().map(engine.answer(jsonLine:)) == Array(repeating: "null", count: spellings.count))
    }

    @Test("a running `query --batch` answers the line after another process's build from the new index")
    func followsAnotherProcess() throws {
        let fixture = try BundleFixture(["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.a"]),
                                         "A.app/old.txt": ""])
        try fixture.build()
        let server = try BatchServer(indexPath: fixture.indexPath)
        func ask(_ line: String) -> String { String(decoding: server.ask(line), as: UTF8.self) }
        let old = #"{"bundle":"com.example.a","op":"path","name":"old","type":"txt"}"#
        let new = #"{"bundle":"com.example.a","op":"path","name":"new","type":"txt"}"#
        let root = fixture.root + "/A.app"
        for _ in 0..<2 {   // the second time from the server's kept answers
            #expect(ask(old) == #""\#(root)/old.txt""# + "\n")
            #expect(ask(new) == "null\n")
        }
        try FileManager.default.removeItem(atPath: root + "/old.txt")
        try fixture.add(["A.app/new.txt": ""])
        try fixture.build()
        #expect(ask(old) == "null\n")
        #expect(ask(new) == #""\#(root)/new.txt""# + "\n")
    }

    @Test("lines and bundle paths are compared as bytes: two spellings Swift calls equal are two bundles")
    func byteSpellings() throws {
        let composed = "Caf\u{E9}.app", decomposed = "Cafe\u{301}.app"
        let fixture = try BundleFixture([composed + "/Info.plist": infoPlist(["CFBundleIdentifier": "composed"])])
        // Not in the same dictionary literal: as Swift String keys the two names are one.
        try fixture.add([decomposed + "/Info.plist": infoPlist(["CFBundleIdentifier": "decomposed"])])
        try fixture.build()
        let engine = BatchQueryEngine(reader: try fixture.reader(), profile: .foundationLinux)
        #expect(composed == decomposed)
        for _ in 0..<2 {   // the first asks open the bundles, the second come from memory
            for (name, identifier) in [(composed, "composed"), (decomposed, "decomposed")] {
                // Other members differ, so each line is answered by the engine, not by a kept line.
                for op in ["identifier", "bundlePath"] {
                    let answer = engine.answer(jsonLine: #"{"bundle":"\#(fixture.root)/\#(name)","op":"\#(op)"}"#)
                    let expected = op == "identifier" ? #""\#(identifier)""# : #""\#(fixture.root)/\#(name)""#
                    #expect(Array(answer.utf8) == Array(expected.utf8), "\(op) of \(identifier)")
                }
            }
        }
    }

    @Test("the byte-keyed table: exact bytes only, colliding hashes kept apart, full tables start again empty")
    func byteKeyedTable() {
        let table = ByteKeyedTable<Int>(capacity: 4, byteCapacity: 64)
        func find(_ key: String, hash: UInt64? = nil) -> Int? {
            let bytes = Array(key.utf8)
            return bytes.withUnsafeBufferPointer { table.value(for: $0, hash: hash ?? ByteKeyedTable<Int>.hash($0)) }
        }
        func put(_ key: String, _ value: Int, hash: UInt64? = nil) {
            let bytes = Array(key.utf8)
            bytes.withUnsafeBufferPointer { table.insert(value, for: $0, hash: hash ?? ByteKeyedTable<Int>.hash($0)) }
        }
        put("abc", 1)
        put("", 2)
        #expect(find("abc") == 1 && find("") == 2)
        #expect(find("ab") == nil && find("abcd") == nil && find("abC") == nil)
        // Two keys given the same hash are still told apart by their bytes.
        put("x", 3, hash: 7)
        put("y", 4, hash: 7)
        #expect(find("x", hash: 7) == 3 && find("y", hash: 7) == 4 && find("z", hash: 7) == nil)
        #expect(table.count == 4)
        put("fifth", 5)
        #expect(table.count == 1 && find("fifth") == 5 && find("abc") == nil, "emptied when full")
        put(String(repeating: "k", count: 60), 6)
        #expect(table.count == 1 && find("fifth") == nil, "emptied when its key bytes would pass the limit")
    }

    @Test("long lines and long answers are answered afresh, not kept")
    func bounds() throws {
        let fixture = try BundleFixture(["A.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.a"]),
                                         "A.app/a.txt": ""])
        try fixture.build()
        let engine = BatchQueryEngine(reader: try fixture.reader(), profile: .foundationLinux)
        let padding = String(repeating: " ", count: LineAnswers.longestLine)
        let long = #"{"bundle":"com.example.a","op":"path","name":"a","type":"txt"}"# + padding
        #expect(engine.answer(jsonLine: long) == #""\#(fixture.root)/A.app/a.txt""#)
        #expect(engine.answers.count.lines == 0, "the line is not kept")
        #expect(engine.answers.count.requests == 1, "its request is")
        let answers = LineAnswers()
        answers.follow(newest: 1, visible: { 1 })
        #expect(answers.keep(ArraySlice(repeating: 0x20, count: LineAnswers.longestAnswer + 1)) == nil)
        let line = Array("line".utf8)
        line.withUnsafeBufferPointer { bytes in
            let hash = ByteKeyedTable<Int>.hash(bytes)
            let kept = answers.keep(ArraySlice("\"a\"".utf8))!
            answers.remember(kept, line: bytes, hash: hash)
            var out = JSONOutput()
            #expect(answers.answer(toLine: bytes, hash: hash) == kept)
            #expect(answers.answer(toRequest: bytes, hash: hash) == nil, "lines and request keys are apart")
            answers.write(kept, into: &out)
            #expect(out.bytes == Array("\"a\"".utf8))
            // The meta page names commit 2 before a read sees it: the answers stay commit 1's.
            answers.follow(newest: 2, visible: { 1 })
            #expect(answers.answer(toLine: bytes, hash: hash) == kept, "commit 2 is not visible yet")
            answers.follow(newest: 2, visible: { 2 })
            #expect(answers.answer(toLine: bytes, hash: hash) == nil && answers.count == (0, 0), "another transaction")
        }
    }

    @Test("a line asked again and again while a build commits sees the commit: kept answers are labelled by the commit they were read in")
    func concurrentCommit() throws {
        let fixture = try BundleFixture(["P.app/Info.plist": infoPlist(["CFBundleIdentifier": "p"]), "P.app/a.png": ""])
        try fixture.build()
        let engine = BatchQueryEngine(reader: try fixture.reader(), profile: .foundationLinux)
        let (root, index) = (fixture.root, fixture.indexPath)
        var stale: [Int] = []
        // LMDB writes a commit's meta page, which `mdb_env_info` reads, milliseconds before a
        // read sees the commit: before, an answer read then was kept as the new commit's, and
        // the line kept its old answer until the next commit (1–12 of 40 rounds here).
        for round in 0..<100 {
            let line = #"{"bundle":"\#(root)/P.app","op":"path","name":"n\#(round)","type":"png"}"#
            #expect(engine.answer(jsonLine: line) == "null")
            FileManager.default.createFile(atPath: root + "/P.app/n\(round).png", contents: nil)
            let built = Atomic(false)
            let builder = Thread {
                _ = try? IndexBuilder.build(roots: [root], indexPath: index)
                built.store(true, ordering: .sequentiallyConsistent)
            }
            builder.start()
            while !built.load(ordering: .sequentiallyConsistent) { _ = engine.answer(jsonLine: line) }
            if engine.answer(jsonLine: line) == "null" { stale.append(round) }
        }
        #expect(stale.isEmpty, "rounds whose line kept its answer from before the build: \(stale)")
    }
}
