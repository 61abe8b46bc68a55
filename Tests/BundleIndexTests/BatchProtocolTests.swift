// The batch protocol end to end inside the process (docs/batch.md): error answers for every
// invalid line, the engine's refusals, the line reader's limit and boundaries, `serve`.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore
@testable import BundleIndexJSON

@Suite("Batch protocol")
struct BatchProtocolTests {
    static func engine() throws -> (BundleFixture, BatchQueryEngine) {
        let fixture = try BundleFixture(["Phone.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.phone"]),
                                         "Phone.app/icon.png": ""])
        try fixture.build()
        return (fixture, BatchQueryEngine(reader: try fixture.reader(), profile: .foundationLinux))
    }

    @Test("every invalid line of the decoder's fuzz gets one error object, never a crash")
    func invalidLinesGetErrorAnswers() throws {
        let (_, engine) = try Self.engine()
        var generator = RequestLineGenerator(seed: 7_000_007)
        var failures: [String] = []
        for line in generator.invalidLines(rounds: BatchRequestTests.invalidRounds) {
            let answer = engine.answer(line: line.bytes)
            let object = try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
            if !(object?["error"] is String) || object?.count != 1 {
                failures.append("\(line.flaw) answered \(answer): \(printable(line.bytes))")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) invalid lines; first: \(failures.prefix(5))")
    }

    @Test("a client that writes one line and waits gets its answer before it sends the next")
    func answersBeforeWaitingForInput() throws {
        let (f, _) = try Self.engine()
        let server = try BatchServer(indexPath: f.indexPath)
        let lines = [#"{"bundle":"com.example.phone","op":"path","name":"icon","type":"png"}"#,
                     #"{"bundle":"com.example.phone","op":"path","name":"none"}"#, "not json"]
        for line in lines {
            let answer = server.ask(line)
            #expect(answer.last == 10 && answer.filter { $0 == 10 }.count == 1, "\(line): \(String(decoding: answer, as: UTF8.self))")
        }
    }

    @Test("a file of lines is answered in large writes, in order, the last one at the end",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "strace counts the writes"))
    func answersCollectBetweenReads() throws {
        let (f, _) = try Self.engine()
        let line = #"{"bundle":"com.example.phone","op":"path","name":"icon","type":"png"}"#
        let count = 5_000   // ~350 KB of answers: several 64 KiB writes and a last, short one
        let r = try run(["strace", "-f", "-e", "trace=write", "-o", f.root + "/trace", bundleidxBinary, "query", "--batch",
                         "--profile", "foundation-linux", "--index", f.indexPath],
                        input: String(repeating: line + "\n", count: count) + "not json\n")
        let answers = r.stdout.split(separator: "\n")
        #expect(answers.count == count + 1 && answers.dropLast().allSatisfy { $0 == "\"\(f.root)/Phone.app/icon.png\"" }
                && answers.last?.hasPrefix("{\"error\":") == true)
        let writes = try String(contentsOfFile: f.root + "/trace", encoding: .utf8).split(separator: "\n")
            .filter { $0.contains("write(1,") }
        #expect(writes.count < count / 100, "\(writes.count) writes for \(count + 1) answers")
    }

    @Test("answers: strings read back as the same scalars; only \", \\ and controls escaped")
    func answerStrings() throws {
        var rng = SeededRandom(state: 4242)
        for _ in 0..<5_000 {
            var s = ""
            for _ in 0..<rng.below(20) {
                switch rng.below(4) {
                case 0: s.unicodeScalars.append(UnicodeScalar(UInt8(rng.below(0x80))))
                case 1: s += ["\"", "\\", "/", "\u{7F}", "\u{2028}", "é", "\u{FEFF}"][rng.below(7)]
                case 2: s.unicodeScalars.append(UnicodeScalar(UInt32(0x10000 + rng.below(0x100000)))!)
                default: s.unicodeScalars.append(UnicodeScalar(UInt32(0xA0 + rng.below(0xD700)))!)
                }
            }
            var out = JSONOutput()
            out.string(s)
            let read = try BatchRequest(decoding: Array(#"{"s":"#.utf8) + out.bytes + [UInt8(ascii: "}")])
            #expect(read.value(for: "s") == .string(s), "\(s.unicodeScalars.map(\.value))")
            // JSONSerialization drops some U+FEFF (BatchRequestTests.byteOrderMarkInStrings).
            if !s.unicodeScalars.contains("\u{FEFF}") {
                let back = try JSONSerialization.jsonObject(with: Data(out.bytes), options: .fragmentsAllowed) as? String
                #expect(back?.unicodeScalars.elementsEqual(s.unicodeScalars) == true, "\(s.unicodeScalars.map(\.value))")
            }
            // The expected spelling, scalar by scalar.
            var expected = "\""
            for u in s.unicodeScalars {
                switch u {
                case "\"": expected += "\\\""
                case "\\": expected += "\\\\"
                case "\n": expected += "\\n"
                case "\r": expected += "\\r"
                case "\t": expected += "\\t"
                case _ where u.value < 0x20: expected += String(format: "\\u%04x", u.value)
                default: expected.unicodeScalars.append(u)
                }
            }
            #expect(String(decoding: out.bytes, as: UTF8.self) == expected + "\"")
        }
        // Path bytes that are not UTF-8 are spelled as a String of them would be.
        var out = JSONOutput()
        let bytes: [UInt8] = [0x61, 0xFF, 0x2F, 0xC3, 0xA9, 0xE2, 0x82]
        bytes.withUnsafeBufferPointer { out.string(utf8: $0) }
        #expect(String(decoding: out.bytes, as: UTF8.self) == JSONText.quote(String(decoding: bytes, as: UTF8.self)))
        #expect(String(decoding: out.bytes, as: UTF8.self) == "\"a\u{FFFD}/é\u{FFFD}\"")
    }

    @Test("string: localizedString(forKey:value:table:) with value and table, and the forLocalization form with loc")
    func strings() throws {
        let fixture = try wordsFixture()
        let engine = BatchQueryEngine(reader: try fixture.reader(), profile: .foundationLinux)
        func ask(_ members: String) -> String { engine.answer(jsonLine: #"{"bundle":"com.example.words","op":"string","# + members + "}") }
        #expect(ask(#""key":"hello""#) == #""bonjour""#)
        #expect(ask(#""key":"hello","table":null"#) == #""bonjour""#)
        #expect(ask(#""key":"s","table":"Plural""#) == #""from stringsdict""#)
        #expect(ask(#""key":"nope","value":"fallback""#) == #""fallback""#)
        #expect(ask(#""key":"nope","value":"""#) == #""nope""#)
        #expect(ask(#""key":"File","table":"Menu""#) == #""File""#)
        #expect(ask(#""key":"only-en","loc":"en""#) == #""english""#)
        #expect(ask(#""key":"only-en""#) == #""only-en""#)
        #expect(ask(#""table":"Menu""#) == #"{"error":"missing \"key\""}"#)
        #expect(ask(#""key":"k","table":7"#) == #"{"error":"\"table\" must be a string or null"}"#)
    }

    @Test("paths, resourcePath, bundlePath: the library's absolute paths; the oracle's form relative to the bundle")
    func pathForms() throws {
        let fixture = try BundleFixture([
            "Tool.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.tool", "CFBundleDevelopmentRegion": "en"]),
            "Tool.app/Contents/Resources/a.png": "", "Tool.app/Contents/Resources/b \"q\" \\.png": "",
            "Tool.app/Contents/Resources/Images/c.png": "", "Tool.app/Contents/Resources/en.lproj/d.png": "",
        ])
        try fixture.build()
        let reader = try fixture.reader()
        let bundle = try #require(try reader.bundle("com.example.tool", context: .foundationLinux))
        let absolute = BatchQueryEngine(reader: reader, profile: .foundationLinux)
        let relative = BatchQueryEngine(reader: reader, profile: .foundationLinux, paths: .relativeToBundle)
        func ask(_ engine: BatchQueryEngine, _ request: String) throws -> Any {
            try JSONSerialization.jsonObject(with: Data(engine.answer(jsonLine: request).utf8), options: .fragmentsAllowed)
        }
        for (type, dir) in [("png", nil), (nil, nil), ("png", "Images"), (nil, "Images")] as [(String?, String?)] {
            let request = JSONText.render([("bundle", .string("com.example.tool")), ("op", .string("paths")),
                                           ("type", type.map(JSONText.string) ?? .null), ("dir", dir.map(JSONText.string) ?? .null)])
            let expected = try bundle.paths(forResourcesOfType: type, inDirectory: dir)
            #expect(!expected.isEmpty)
            #expect(try ask(absolute, request) as? [String] == expected, "\(request)")
            #expect(try ask(relative, request) as? [String] == (try bundle.resources(ofType: type, inDirectory: dir)).map(\.relativePath))
        }
        let resourcePath = #"{"bundle":"com.example.tool","op":"resourcePath"}"#, bundlePath = #"{"bundle":"com.example.tool","op":"bundlePath"}"#
        #expect(try ask(absolute, resourcePath) as? String == bundle.resourcePath)
        #expect(try ask(relative, resourcePath) as? String == "Contents/Resources")
        #expect(try ask(absolute, bundlePath) as? String == bundle.bundlePath)
        #expect(try ask(relative, bundlePath) as? String == bundle.bundlePath)
    }

    @Test("the engine refuses U+0000 in names and bundles, numbers where strings go, unknown ops")
    func engineRefusals() throws {
        let (fixture, engine) = try Self.engine()
        let refusals: [(String, String)] = [
            (#"{"bundle":"com.example.phone","op":"path","name":"ic\u0000on","type":"png"}"#, "\"name\" contains a NUL character"),
            (#"{"bundle":"com.example.phone\u0000x","op":"dev"}"#, "\"bundle\" contains a NUL character"),
            (#"{"bundle":"com.example.phone","op":"path","name":7}"#, "\"name\" must be a string or null"),
            (#"{"bundle":"com.example.phone","op":"preferredFrom","prefs":["en",1]}"#, "\"prefs\" must be an array of strings"),
            (#"{"bundle":"com.example.phone","op":"preferredFrom","prefs":"en"}"#, "\"prefs\" must be an array of strings"),
            (#"{"bundle":"com.example.phone","op":"info"}"#, "missing \"key\""),
            (#"{"bundle":"com.example.phone","op":"nope"}"#, "unknown op nope"),
            (#"{"bundle":"com.example.phone"}"#, "missing \"op\""),
            (#"{"bundle":"com.example.phone","op\u0000":"dev"}"#, "missing \"op\""),
            (#"{"bundle":"com.example.phone","op":"dev\u0000"}"#, "\"op\" contains a NUL character"),
            (#"{"bundle":"com.example.phone","op":"infoKeys\u0000"}"#, "\"op\" contains a NUL character"),
            (#"{"bundle":"com.example.phone","op":"info\u212Aeys"}"#, "unknown op info\u{212A}eys"),
            (#"{"op":"dev","bundle":""}"#, "missing \"bundle\""),
            (#"{"bundle":"com.example.none","op":"dev"}"#, "bundle not in the index: com.example.none"),
            (#"{"bundle":"com.example.phone","op":"dev"} x"#, "malformed request at byte 42: unexpected text after the object"),
        ]
        for (line, message) in refusals {
            #expect(engine.answer(jsonLine: line) == JSONText.render([("error", .string(message))]), "\(line)")
        }
        #expect(engine.answer(jsonLine: #"{"bundle":"com.example.phone","op":"path","name":"icon","type":"png","kind":{"x":1}}"#)
                .hasPrefix(#"{"error":"malformed request at byte 76: nested values"#))
        #expect(engine.answer(jsonLine: #"{"bundle":"com.example.phone","op":"path","name":"icon","type":"png","kind":"global"}"#)
                == JSONText.quote(fixture.root + "/Phone.app/icon.png"), "unknown keys are ignored")
    }

    @Test("the line reader: lines, the last without a newline, overlong lines dropped in pieces")
    func lineReader() throws {
        var rng = SeededRandom(state: 99)
        let scratch = makeTempDirectory(prefix: "line-reader")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for round in 0..<300 {
            let limit = 1 + rng.below(12), readSize = 1 + rng.below(5)
            var input: [UInt8] = []
            var expected: [String] = []
            for _ in 0..<rng.below(12) {
                let length = rng.below(2 * limit + 2)
                let line = (0..<length).map { _ in UInt8(ascii: "a") + UInt8(rng.below(26)) }
                input += line + [0x0A]
                expected.append(length > limit ? "<too long>" : String(decoding: line, as: UTF8.self))
            }
            if rng.below(2) == 0 {
                let length = 1 + rng.below(2 * limit)
                input += (0..<length).map { _ in UInt8(ascii: "A") }
                expected.append(length > limit ? "<too long>" : String(repeating: "A", count: length))
            }
            let path = scratch + "/\(round)"
            _ = FileManager.default.createFile(atPath: path, contents: Data(input))
            let fd = open(path, O_RDONLY)
            defer { close(fd) }
            let reader = LineReader(fd: fd, limit: limit, readSize: readSize)
            var lines: [String] = []
            while let line = try reader.next() {
                switch line {
                case .text(let bytes): lines.append(String(decoding: bytes, as: UTF8.self))
                case .tooLong: lines.append("<too long>")
                }
            }
            #expect(lines == expected, "limit \(limit), read size \(readSize), input \(printable(input))")
        }
    }

    @Test("serve: one answer per line in order, blank lines skipped, a 1 MiB line answered, a longer one refused")
    func serve() throws {
        let (fixture, engine) = try Self.engine()
        let query = Array(#"{"bundle":"com.example.phone","op":"path","name":"icon","type":"png","pad":""}"#.utf8)
        func padded(to length: Int) -> [UInt8] {
            Array(query.dropLast(2)) + Array(repeating: UInt8(ascii: "x"), count: length - query.count) + Array(#""}"#.utf8)
        }
        var input: [UInt8] = query + [0x0A]
        input += Array(" \t\r\n\n".utf8)
        input += padded(to: BatchRequest.maximumLineLength) + [0x0A]
        input += padded(to: BatchRequest.maximumLineLength + 1) + [0x0A]
        input += Array(repeating: UInt8(ascii: " "), count: 3 * BatchRequest.maximumLineLength) + [0x0A]
        input += [0xFF, 0x0A]
        input += query   // no newline at the end
        let scratch = makeTempDirectory(prefix: "serve")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        _ = FileManager.default.createFile(atPath: scratch + "/in", contents: Data(input))
        _ = FileManager.default.createFile(atPath: scratch + "/out", contents: nil)
        let inFD = open(scratch + "/in", O_RDONLY), outFD = open(scratch + "/out", O_WRONLY)
        try engine.serve(input: inFD, output: outFD)
        close(inFD)
        close(outFD)
        let output = try String(contentsOfFile: scratch + "/out", encoding: .utf8)
        let icon = JSONText.quote(fixture.root + "/Phone.app/icon.png")
        let tooLong = JSONText.render([("error", .string("the line is longer than 1048576 bytes"))])
        let badUTF8 = JSONText.render([("error", .string("malformed request at byte 0: a request must be a JSON object"))])
        #expect(output.split(separator: "\n", omittingEmptySubsequences: false)
                == [icon, icon, tooLong, tooLong, badUTF8, icon, ""].map { Substring($0) })
    }

}

extension BatchQueryEngine {
    /// The answer to a line given as bytes (which need not be UTF-8).
    func answer(line: [UInt8]) -> String {
        var out = JSONOutput()
        line.withUnsafeBufferPointer { answer(line: $0, into: &out) }
        return String(decoding: out.bytes, as: UTF8.self)
    }
}

