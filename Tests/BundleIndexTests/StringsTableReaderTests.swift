// The narrow `.strings` parser against CoreFoundation's (docs/scanning.md, "Reading strings
// tables"): whatever it answers is CF's answer. Every real table of a corpus when one is named,
// seeded generated tables with every escape and irregularity CF knows, and one test per rule.
import Foundation
import Glibc
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("The OpenStep strings parser answers as CoreFoundation", .serialized)
struct StringsTableReaderTests {
    /// The entries as (key bytes, value bytes), in key order: CF's dictionary has an order of its
    /// own, the index sorts by hash anyway.
    static func comparable(_ entries: [StringsTable.Entry]) -> [[UInt8]] {
        entries.map { Array($0.key.utf8) + [0xFF] + Array($0.value.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// CF's entries and the narrow parser's (nil: left to CF), with CF's complaints about tables
    /// it cannot parse kept off the test output.
    static func both(_ bytes: [UInt8]) -> (cf: [StringsTable.Entry], narrow: [StringsTable.Entry]?) {
        let cf = withStandardErrorSilenced { StringsTableReader.propertyListEntries(from: bytes, dictionaryFile: false) }
        return (cf, OpenStepStringsParser.entries(from: bytes))
    }

    /// Held while standard error points elsewhere (`withStandardErrorSilenced`,
    /// `withStandardErrorCaptured`): the descriptor is the process's, and suites run in
    /// parallel, so one test's CF line would land in another's capture.
    static let standardErrorLock = NSLock()

    static func withStandardErrorSilenced<T>(_ body: () -> T) -> T {
        standardErrorLock.lock()
        defer { standardErrorLock.unlock() }
        fflush(nil)
        let saved = dup(STDERR_FILENO)
        let null = open("/dev/null", O_WRONLY)
        dup2(null, STDERR_FILENO)
        close(null)
        defer {
            fflush(nil)
            dup2(saved, STDERR_FILENO)
            close(saved)
        }
        return body()
    }

    static func utf16(_ text: String, bigEndian: Bool = false, bom: Bool = true) -> [UInt8] {
        let units: [UInt16] = (bom ? [0xFEFF] : []) + Array(text.utf16)
        return units.flatMap { u -> [UInt8] in
            bigEndian ? [UInt8(u >> 8), UInt8(u & 0xFF)] : [UInt8(u & 0xFF), UInt8(u >> 8)]
        }
    }

    /// The narrow parser decides `bytes` and agrees with CF.
    static func decidedAsCF(_ bytes: [UInt8], _ comment: Comment? = nil) -> [String: String] {
        let (cf, narrow) = both(bytes)
        #expect(narrow != nil, "left to CF: \(comment?.description ?? String(decoding: bytes, as: UTF8.self))")
        #expect(comparable(narrow ?? []) == comparable(cf), "\(comment?.description ?? String(decoding: bytes, as: UTF8.self))")
        return Dictionary((narrow ?? []).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    /// Every file of the corpus named by BUNDLEIDX_REAL_CORPUS whose path passes `filter`, with
    /// its bytes.
    static func realCorpusFiles(where filter: (String) -> Bool) throws -> [(path: String, bytes: [UInt8])] {
        let corpus = try #require(ProcessInfo.processInfo.environment["BUNDLEIDX_REAL_CORPUS"])
        let walk = try #require(FileManager.default.enumerator(atPath: corpus))
        var out: [(path: String, bytes: [UInt8])] = []
        while let relative = walk.nextObject() as? String {
            if filter(relative), let data = FileManager.default.contents(atPath: corpus + "/" + relative) { out.append((relative, Array(data))) }
        }
        return out
    }

    @Test("every table of a real corpus reads as CF reads it, most of them without CF (tools/real-corpus DIR, then BUNDLEIDX_REAL_CORPUS=DIR)",
          .enabled(if: ProcessInfo.processInfo.environment["BUNDLEIDX_REAL_CORPUS"] != nil, "no real corpus named"))
    func realTables() throws {
        var tables = 0, decided = 0, differing: [String] = []
        for (relative, bytes) in try Self.realCorpusFiles(where: { $0.hasSuffix(".strings") }) {
            tables += 1
            let (cf, narrow) = Self.both(bytes)
            guard let narrow else { continue }
            decided += 1
            if Self.comparable(narrow) != Self.comparable(cf) { differing.append(relative) }
        }
        #expect(differing.isEmpty, "\(differing.count) of \(tables) tables differ from CF: \(differing.prefix(10))")
        // Tables in an encoding CF guesses otherwise (Latin-1 text) and XML ones are CF's.
        #expect(tables > 0 && decided * 10 >= tables * 9, "the narrow parser decided \(decided) of \(tables) tables")
    }

    @Test("generated tables (escapes, comments, bare words, shorthand, duplicates, braces, UTF-16, truncation, garbage) read as CF reads them")
    func generatedTables() {
        let count = 20_000
        let (decided, differing) = differentialRun(count: count, seed: 11, make: GeneratedTable.make) { bytes in
            let (cf, narrow) = Self.both(bytes)
            guard let narrow else { return (false, true) }
            return (true, Self.comparable(narrow) == Self.comparable(cf))
        }
        #expect(differing.isEmpty, "differ from CF (of \(decided) decided): \(differing)")
        // The rest is garbage, truncated text, nested values, lone surrogates: CF's to read.
        #expect(decided * 5 >= count * 2, "the narrow parser decided \(decided) of \(count) tables")
    }

    @Test("a key written twice keeps its last value, as CFDictionarySetValue does")
    func duplicateKeys() {
        let table = Self.decidedAsCF(Array("\"k\" = \"first\";\n\"other\" = \"x\";\n\"k\" = \"second\";\n".utf8))
        #expect(table == ["k": "second", "other": "x"])
    }

    @Test("`key;` is the key for its own value; bare words are strings")
    func shorthandAndBareWords() {
        let table = Self.decidedAsCF(Array("\"Cancel\";\nOK = Fine;\n/usr/x-y:1.2 = $a_b;".utf8))
        #expect(table == ["Cancel": "Cancel", "OK": "Fine", "/usr/x-y:1.2": "$a_b"])
    }

    @Test("escapes: control letters, quotes, backslash, \\U with up to four digits, octal up to three digits, others as themselves")
    func escapes() {
        let text = #""a" = "\n\t\r\a\b\f\v"; "b" = "\"\'\\\q"; "c" = "\U00e9\U1F600x\UD83D\UDE00\U"; "d" = "\012\0\101\1012\77";"#
        let table = Self.decidedAsCF(Array(text.utf8))
        #expect(table["a"] == "\n\t\r\u{7}\u{8}\u{C}\u{B}")
        #expect(table["b"] == "\"'\\q")
        #expect(table["c"] == "\u{E9}\u{1F60}0x\u{1F600}\u{0}")
        #expect(table["d"] == "\n\u{0}AA2?")
    }

    @Test("comments and CF's white space (U+2028, U+2029 included) between tokens; an unterminated /* ends the table")
    func commentsAndSpace() {
        let text = "// heading\n/* block\n*/\"a\"\u{2028}=\u{2029}\"1\"; // trailing\n\"b\" /**/ = \"2\";/* open"
        #expect(Self.decidedAsCF(Array(text.utf8)) == ["a": "1", "b": "2"])
    }

    @Test("outer braces, UTF-8 with a byte-order mark, UTF-16 either way with one")
    func encodingsAndBraces() {
        let text = "{ \"caf\u{E9}\" = \"\u{1F600} \u{4E2D}\"; }"
        let expected = ["caf\u{E9}": "\u{1F600} \u{4E2D}"]
        #expect(Self.decidedAsCF(Array(text.utf8)) == expected)
        #expect(Self.decidedAsCF([0xEF, 0xBB, 0xBF] + Array(text.utf8)) == expected)
        #expect(Self.decidedAsCF(Self.utf16(text)) == expected)
        #expect(Self.decidedAsCF(Self.utf16(text, bigEndian: true)) == expected)
    }

    @Test("a missing ';' (the two failures CF writes to standard error) is decided: no table, and the line CF names")
    func missingSemicolon() throws {
        let cases: [(text: String, line: Int)] = [
            ("\"a\" = \"b\";\n\"c\" = \"d\"\n\"e\" = \"f\";", 3),      // a value without its ';'
            ("\"a\" = \"b\";\r\n\"c\";\r\n\r\n\"d\"", 4),              // the text ends after a key
            ("{ \"a\" = \"b\" }", 1),                                   // braces do not close an entry
            ("/* x */\r\"a\" = b c;", 2),                               // a bare value, then another word
        ]
        for (text, line) in cases {
            #expect(OpenStepStringsParser.read(Array(text.utf8)) == .missingSemicolon(line: line), "\(text)")
            let (entries, complaint) = try Self.withStandardErrorCaptured {
                StringsTableReader.propertyListEntries(from: Array(text.utf8), dictionaryFile: false)
            }
            #expect(entries.isEmpty, "\(text)")
            // CF reads no table either, and says so with the same line (and no file name).
            #expect(complaint.contains("missing semicolon") && complaint.contains("on line \(line)."), "\(text): \(complaint)")
        }
    }

    @Test("a table CF cannot read is named in the build's warnings, with its line, and CF writes nothing")
    func missingSemicolonWarning() throws {
        let fixture = try BundleFixture([
            "X.bundle/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.x", "CFBundleDevelopmentRegion": "de"]),
            "X.bundle/de.lproj/Localizable.strings": "\"ok\" = \"gut\";\n\"broken\" = \"kaputt\"\n\"next\" = \"x\";\n",
        ])
        let (summary, stderr) = try Self.withStandardErrorCaptured { try fixture.build() }
        let warning = try #require(summary.warnings.first { $0.contains("Localizable.strings") })
        #expect(warning.contains(fixture.root + "/X.bundle/de.lproj/Localizable.strings") && warning.contains("line 3"), "\(warning)")
        #expect(!stderr.contains("CFPropertyList"), "\(stderr)")
        // Foundation finds no key in the table either.
        let b = try fixture.bundle("X.bundle")
        #expect(try b.localizedString(forKey: "ok", value: nil, table: nil) == "ok")
    }

    /// What `body` returns and what was written to standard error meanwhile.
    static func withStandardErrorCaptured<T>(_ body: () throws -> T) throws -> (T, String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        standardErrorLock.lock()
        defer { standardErrorLock.unlock() }
        fflush(nil)
        let saved = dup(STDERR_FILENO)
        let out = open(file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        dup2(out, STDERR_FILENO)
        close(out)
        let result: Result<T, Error> = Result { try body() }
        fflush(nil)
        dup2(saved, STDERR_FILENO)
        close(saved)
        defer { try? FileManager.default.removeItem(at: file) }
        return (try result.get(), (try? String(contentsOf: file, encoding: .utf8)) ?? "")
    }

    @Test("a build reads a table once per real path; a hard link to it is another path, read again")
    func tablesReadOncePerRealPath() throws {
        let dir = makeTempDirectory(prefix: "tables")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/Localizable.strings", hardLink = dir + "/Copy.strings"
        func write(_ value: String) throws { try Data("\"a\" = \"\(value)\";".utf8).write(to: URL(fileURLWithPath: path)) }
        func entries(_ value: String) -> StringsTable.Content { .entries(StringsTable.Entries([StringsTable.Entry(key: "a", value: value)])) }
        try write("1")
        #expect(link(path, hardLink) == 0)
        // Two links to the folder: other spellings of the same real paths.
        #expect(symlink(dir, dir + "/Linked") == 0 && symlink(dir, dir + "/Other") == 0)
        let reads = FilesRead()
        // Read where it lies: looked for, not kept (a tree without links keeps nothing).
        #expect(try reads.table(path, realPath: path).content == entries("1"))
        try write("2")   // in place: the hard link sees it too
        #expect(try reads.table(path, realPath: path).content == entries("2"))
        // Read through a link (another spelling of its real path): kept, and found where it lies
        // and through any other link.
        #expect(try reads.table(dir + "/Linked/Localizable.strings", realPath: path).content == entries("2"))
        try write("3")
        #expect(try reads.table(path, realPath: path).content == entries("2"))
        #expect(try reads.table(dir + "/Other/Localizable.strings", realPath: path).content == entries("2"))
        // A hard link is another file, and an unknown real path is never looked for.
        #expect(try reads.table(hardLink, realPath: hardLink).content == entries("3"))
        #expect(try reads.table(path, realPath: nil).content == entries("3"))
        let none = FilesRead.none
        #expect(try none.table(dir + "/Linked/Localizable.strings", realPath: path).content == entries("3"))
        // Real paths are compared as bytes: "é" in one scalar and in two are two files.
        let composed = dir + "/\u{E9}.strings", decomposed = dir + "/e\u{301}.strings"
        try Data("\"a\" = \"5\";".utf8).write(to: URL(fileURLWithPath: composed))
        try Data("\"a\" = \"6\";".utf8).write(to: URL(fileURLWithPath: decomposed))
        #expect(try reads.table(dir + "/Linked/\u{E9}.strings", realPath: composed).content == entries("5"))
        #expect(try reads.table(decomposed, realPath: decomposed).content == entries("6"))
        #expect(try reads.table(dir + "/Linked/e\u{301}.strings", realPath: decomposed).content == entries("6"))
    }

    @Test("left to CF: XML and binary lists, non-string values, high octal escapes, lone surrogates, other encodings, text CF rejects")
    func leftToCF() {
        let cases: [[UInt8]] = [
            Array("<?xml version=\"1.0\"?><plist><dict><key>a</key><string>b</string></dict></plist>".utf8),
            Array("bplist00".utf8),
            Array("\"a\" = { \"b\" = \"c\"; };".utf8),
            Array("\"a\" = (\"b\");".utf8),
            Array("\"a\" = <0a0b>;".utf8),
            Array("\"a\" = \"\\351\";".utf8),
            Array("\"a\" = \"\\UD800\";".utf8),
            Self.utf16("\"a\" = \"x\";") + [0x00, 0xD8],
            Self.utf16("\"a\" = \"x\";", bom: false),
            [0x22, 0x61, 0x22, 0x3D, 0x22, 0xE9, 0x22, 0x3B],   // Latin-1 é
            Array("\"a\" = \"b\"; \"unterminated".utf8),
            Array("\"just a string\"".utf8),
        ]
        for bytes in cases {
            let (cf, narrow) = Self.both(bytes)
            #expect(narrow == nil, "decided: \(String(decoding: bytes, as: UTF8.self))")
            let read = Self.withStandardErrorSilenced { StringsTableReader.entries(from: bytes, dictionaryFile: false) }
            #expect(Self.comparable(read) == Self.comparable(cf))
        }
    }
}

/// Random `.strings` text: mostly tables CF reads, in every spelling CF knows, and some it does
/// not (truncated, a missing semicolon, garbage, nested values, other encodings).
enum GeneratedTable {
    static let plain = Array("abcXYZ019 _$/:.-=;{}()<>,").map(String.init) + ["\u{E9}", "\u{4E2D}", "\u{1F600}", "\u{2028}", "\u{0}", "\n", "\t"]
    static let escapes = [#"\n"#, #"\t"#, #"\r"#, #"\a"#, #"\b"#, #"\f"#, #"\v"#, #"\""#, #"\'"#, #"\\"#, #"\q"#, "\\\u{E9}",
                          #"\U1234"#, #"\U00e9"#, #"\Uabc"#, #"\U"#, #"\UD83D\UDE00"#, #"\012"#, #"\0"#, #"\7"#, #"\101"#,
                          #"\1012"#, #"\477"#, "\\\n"]
    /// Escapes whose answer the narrow parser leaves to CF (lone surrogates, octal above 0x7F).
    static let rareEscapes = [#"\UD800"#, #"\UDC00"#, #"\777"#, #"\200"#]
    static let bare = Array("abcXYZ019_$/:.-").map(String.init)
    static let spaces = [" ", "\n", "\t", "\r\n", "\u{2028}", "\u{2029}", "// note\n", "/* note */", "/**/", "\u{B}\u{C}"]

    static func make(_ random: inout SeededRandom) -> [UInt8] {
        var keys: [String] = []
        var text = ""
        let braces = random.below(5) == 0
        if braces { text += "{" }
        for _ in 0..<random.below(8) {
            text += space(&random)
            let key = random.below(4) == 0 && !keys.isEmpty ? random.pick(keys)! : string(&random)
            keys.append(key)
            text += key + space(&random)
            switch random.below(30) {
            case 0, 1, 2: text += ";"
            case 3: text += "= " + random.pick(["{ a = b; }", "(a, b)", "<0a>", ""])! + ";"
            case 4: text += "= " + string(&random)                    // no semicolon
            default: text += "=" + space(&random) + string(&random) + space(&random) + ";"
            }
        }
        text += space(&random)
        if braces && random.below(6) != 0 { text += "}" + space(&random) }
        var bytes: [UInt8]
        switch random.below(10) {
        case 0: bytes = [0xEF, 0xBB, 0xBF] + Array(text.utf8)
        case 1: bytes = StringsTableReaderTests.utf16(text)
        case 2: bytes = StringsTableReaderTests.utf16(text, bigEndian: true)
        case 3: bytes = StringsTableReaderTests.utf16(text, bom: random.below(2) == 0)
        default: bytes = Array(text.utf8)
        }
        switch random.below(20) {
        case 0: bytes = Array(bytes.prefix(random.below(bytes.count + 1)))               // truncated
        case 1: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: random.below(bytes.count + 1))  // a garbage byte
        case 2: bytes = (0..<random.below(40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }        // garbage
        case 3 where bytes.count > 3: bytes.insert(contentsOf: [0x00, 0xD8], at: 2 + 2 * random.below((bytes.count - 2) / 2))  // a lone surrogate
        default: break
        }
        return bytes
    }

    static func space(_ random: inout SeededRandom) -> String {
        (0..<random.below(3)).map { _ in random.pick(spaces)! }.joined()
    }

    static func string(_ random: inout SeededRandom) -> String {
        if random.below(4) == 0 {
            return (0...random.below(6)).map { _ in random.pick(bare)! }.joined()
        }
        let quote = random.below(5) == 0 ? "'" : "\""
        let body = (0..<random.below(10)).map { _ in
            random.below(400) == 0 ? random.pick(rareEscapes)! : random.below(3) == 0 ? random.pick(escapes)! : random.pick(plain)!
        }.joined()
        return quote + body + quote
    }
}
