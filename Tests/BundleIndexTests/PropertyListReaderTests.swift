// Info.plist files read through CF's objects directly (CoreFoundationPropertyList) against the
// bridged Foundation path they replace (PropertyListReader.foundationDictionary): the same
// dictionary or the same failure, on every property list of a real corpus and on generated ones.
// OpenStep text read without CF (OpenStepStringsParser.propertyList) against CF's own answer,
// on generated text (a differential fuzz test) and one rule at a time.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Info.plist through CF's objects answers as through Foundation's")
struct PropertyListReaderTests {
    /// A comparable picture of a reader's answer.
    static func outcome(_ r: Result<[String: PropertyListValue], PropertyListReader.Failure>) -> String {
        switch r {
        case .success(let d): "\(PropertyListValue.dictionary(d))"
        // Foundation's path knows only that the text is malformed; the narrow parser also says
        // where the ';' is missing.
        case .failure(.missingSemicolon): "failure: \(PropertyListReader.Failure.malformed)"
        case .failure(let f): "failure: \(f)"
        }
    }

    static func agree(_ bytes: [UInt8], gnustep: Bool = false) -> Bool {
        let direct = PropertyListReader.dictionary(from: bytes, gnustep: gnustep)
        let bridged = PropertyListReader.foundationDictionary(from: bytes, gnustep: gnustep)
        if case .success(let a) = direct, case .success(let b) = bridged { return a == b }
        return outcome(direct) == outcome(bridged)
    }

    static func decidedDirectly(_ bytes: [UInt8]) -> Bool {
        if case .leftToFoundation = CoreFoundationPropertyList.parse(bytes) { return false }
        return true
    }

    @Test("every Info.plist and InfoPlist.strings of a real corpus reads as through Foundation (tools/real-corpus DIR, then BUNDLEIDX_REAL_CORPUS=DIR)",
          .enabled(if: ProcessInfo.processInfo.environment["BUNDLEIDX_REAL_CORPUS"] != nil, "no real corpus named"))
    func realPropertyLists() throws {
        var files = 0, direct = 0, openStep = 0, narrow = 0, differing: [String] = []
        let isInfo = { (path: String) in
            let name = (path as NSString).lastPathComponent.lowercased()
            return name.hasPrefix("info") && (name.hasSuffix(".plist") || name.hasSuffix(".strings"))
        }
        for (relative, bytes) in try StringsTableReaderTests.realCorpusFiles(where: isInfo) {
            files += 1
            if Self.decidedDirectly(bytes) { direct += 1 }
            if bytes.first(where: { $0 > 0x20 }) == UInt8(ascii: "{") {
                openStep += 1
                let (decided, agrees) = Self.narrowAgreesWithCF(bytes)
                if decided { narrow += 1 }
                if !agrees { differing.append(relative + " (the narrow parser)") }
            }
            let gnustep = (relative as NSString).lastPathComponent.lowercased() == "info-gnustep.plist"
            if !Self.agree(bytes, gnustep: gnustep) { differing.append(relative) }
        }
        #expect(files > 100 && direct * 10 >= files * 9, "CF's objects decided \(direct) of \(files)")
        #expect(openStep > 100 && narrow * 10 >= openStep * 9, "the narrow parser decided \(narrow) of \(openStep) OpenStep lists")
        #expect(differing.isEmpty, "\(differing.count) of \(files) differ: \(differing.prefix(10))")
    }

    @Test("XML, binary and OpenStep lists of every type (strings, integers at the edges, reals, bools, dates, data, arrays, nested dictionaries) read alike")
    func generatedPropertyLists() throws {
        var random = SeededRandom(state: 3)
        func value(_ depth: Int) -> Any {
            switch random.below(depth > 2 ? 7 : 9) {
            case 0: return random.pick(["", "plain", "caf\u{E9} \u{1F600}", "e\u{301}", "\u{0}", "<&>"])!
            case 1: return random.pick([0, 1, -1, 127, 128, 255, 256, 65_535, Int(Int32.max) + 1, Int.max, Int.min])!
            case 2: return random.pick([0.0, -0.5, 1e300, 3.25, Double.leastNonzeroMagnitude])!
            case 3: return random.below(2) == 0
            case 4: return Date(timeIntervalSince1970: Double(random.below(4_000_000_000)) - 1e9 + 0.25)
            case 5: return Data((0..<random.below(20)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            case 6: return "k\(random.below(1000))"
            case 7: return (0..<random.below(4)).map { _ in value(depth + 1) }
            default: return Dictionary((0..<random.below(4)).map { ("key\($0)", value(depth + 1)) }, uniquingKeysWith: { a, _ in a })
            }
        }
        var differing = 0, direct = 0
        for i in 0..<400 {
            let top = Dictionary((0..<random.below(6)).map { ("CFBundle\($0)", value(0)) }, uniquingKeysWith: { a, _ in a })
            let format: PropertyListSerialization.PropertyListFormat = i % 2 == 0 ? .xml : .binary
            let data = try PropertyListSerialization.data(fromPropertyList: top, format: format, options: 0)
            if !Self.agree(Array(data)) { differing += 1 }
            if Self.decidedDirectly(Array(data)) { direct += 1 }
        }
        #expect(differing == 0)
        #expect(direct >= 350, "CF's objects decided \(direct) of 400")
        let texts = [
            "{ CFBundleName = Ink; NSTypes = ( { NSUnixExtensions = ( ink, txt ); }, \"two\" ); Data = <0a0b>; }",
            "<plist><dict><key>Big</key><integer>18446744073709551615</integer><key>Neg</key><integer>-9223372036854775808</integer></dict></plist>",
            "<plist><dict><key>D</key><date>2001-01-01T00:00:00Z</date><key>R</key><real>1.5</real><key>T</key><true/></dict></plist>",
            "<plist><array><string>not a dictionary</string></array></plist>",
            "\"a\" = \"b\";", "not a plist {", "",
            "{ e\u{301} = 1; \u{E9} = 2; }",
        ]
        for text in texts {
            #expect(Self.agree(Array(text.utf8)), "\(text)")
            #expect(Self.agree(Array(text.utf8), gnustep: true), "\(text)")
        }
    }

    /// Whether the narrow parser leaves `bytes` to CF or answers exactly as CF's objects do: the
    /// same value, or no property list where it finds a `;` missing. CF is asked only about text
    /// the narrow parser decided; for a missing `;` CF writes its line to standard error, silenced.
    static func narrowAgreesWithCF(_ bytes: [UInt8]) -> (decided: Bool, agrees: Bool) {
        switch OpenStepStringsParser.readPropertyList(bytes) {
        case .leftToCF:
            return (false, true)
        case .missingSemicolon:
            let cf = StringsTableReaderTests.withStandardErrorSilenced { CoreFoundationPropertyList.parse(bytes) }
            guard case .unparsable = cf else { return (true, false) }
            return (true, true)
        case .value(let narrow):
            guard case .parsed(let value?) = CoreFoundationPropertyList.parse(bytes) else { return (true, false) }
            return (true, value == narrow)
        }
    }

    @Test("OpenStep property lists the narrow parser reads (nesting, arrays, trailing commas, `key;`, repeated keys, UTF-16, junk, truncation) read as CF reads them")
    func narrowOpenStepPropertyLists() {
        let count = 20_000
        let (decided, differing) = differentialRun(count: count, seed: 17, make: GeneratedPropertyListText.make,
                                                   check: Self.narrowAgreesWithCF)
        #expect(differing.isEmpty, "differ from CF (of \(decided) decided): \(differing)")
        // The rest is data, broken or truncated text, garbage, non-ASCII keys: CF's to read.
        #expect(decided * 3 >= count, "the narrow parser decided \(decided) of \(count) lists")
    }

    @Test("the narrow parser's rules: what it answers is CF's answer; data, text that decodes to nothing, non-ASCII keys, junk and missing ';' go to CF")
    func narrowRules() {
        func decided(_ text: String, _ expected: PropertyListValue) {
            let bytes = Array(text.utf8)
            #expect(OpenStepStringsParser.propertyList(from: bytes) == expected, "\(text)")
            #expect(Self.narrowAgreesWithCF(bytes) == (true, true), "\(text)")
        }
        func leftToCF(_ bytes: [UInt8], _ comment: Comment) {
            #expect(OpenStepStringsParser.propertyList(from: bytes) == nil, comment)
        }
        decided("{ a = (b, \"c d\",); e = { f = g; }; h; i = (); }",
                .dictionary(["a": .array([.string("b"), .string("c d")]), "e": .dictionary(["f": .string("g")]),
                             "h": .string("h"), "i": .array([])]))
        decided("{ a = b; a = c; }", .dictionary(["a": .string("c")]))
        decided("a = b; // a strings file\n c = \"\\U00e9\";", .dictionary(["a": .string("b"), "c": .string("\u{E9}")]))
        decided(" \n\t/* nothing */ ", .dictionary([:]))
        decided("( a, { b = c; } )", .array([.string("a"), .dictionary(["b": .string("c")])]))
        decided("\"just a string\"", .string("just a string"))
        decided("{ k = \"caf\u{E9} \u{1F600}\"; }", .dictionary(["k": .string("caf\u{E9} \u{1F600}")]))
        leftToCF(Array("{ a = <0a0b>; }".utf8), "data")
        leftToCF([0xEF, 0xBB, 0xBF], "a byte-order mark alone: CF reads no property list from empty text")
        leftToCF(Array("{ \"caf\u{E9}\" = b; }".utf8), "a key that is not ASCII")
        leftToCF(Array("{ a = b; } junk".utf8), "junk after the dictionary")
        leftToCF(Array("( a b )".utf8), "an array without its ','")
        leftToCF(Array(String(repeating: "(", count: 70).utf8) + Array(String(repeating: ")", count: 70).utf8), "nesting deeper than 64")
        leftToCF(Array("<plist><dict/></plist>".utf8), "XML")
    }

    @Test("a missing ';' anywhere is decided without CF: no property list, the line CF names, and no line from CF in a build")
    func missingSemicolon() throws {
        let cases: [(text: String, line: Int)] = [
            ("{ a = b }", 1),                                            // braces do not close an entry
            ("{\n  CFBundleName = A;\n  NSMainNibFile = x\n  CFBundleIdentifier = a.b;\n}\n", 4),
            ("{ a = { b = c }; }", 1),                                   // in a nested dictionary
            ("{ a = ( x, { b = c\r\n } ); }", 2),                        // in a dictionary in an array
            ("{ a = b;\n\n c", 3),                                      // the text ends after a key
            ("a = b;\n c = d\n e = f;", 3),                             // a strings file's form
            ("{ a = (1, 2) b = c; }", 1),                                // an array's entry not closed
        ]
        for (text, line) in cases {
            let bytes = Array(text.utf8)
            #expect(OpenStepStringsParser.readPropertyList(bytes) == .missingSemicolon(line: line), "\(text)")
            let (cf, complaint) = try StringsTableReaderTests.withStandardErrorCaptured { CoreFoundationPropertyList.parse(bytes) }
            guard case .unparsable = cf else {
                Issue.record("CF reads \(text)")
                continue
            }
            // CF reads nothing either, and says so with the same line.
            #expect(complaint.contains("missing semicolon") && complaint.contains("on line \(line)."), "\(text): \(complaint)")
            let (read, quiet) = try StringsTableReaderTests.withStandardErrorCaptured { PropertyListReader.dictionary(from: bytes) }
            #expect(Self.outcome(read) == "failure: is not a valid property list", "\(text)")
            guard case .failure(.missingSemicolon(line)) = read else {
                Issue.record("\(text): \(read)")
                continue
            }
            #expect(quiet.isEmpty, "\(text): \(quiet)")
        }
        // Where the missing ';' is not reached as CF would reach it, CF decides.
        #expect(OpenStepStringsParser.readPropertyList(Array("{ a = <0a>; b = c }".utf8)) == .leftToCF)
        #expect(OpenStepStringsParser.readPropertyList(Array("{ \"caf\u{E9}\" = b c; }".utf8)) == .leftToCF)

        let fixture = try BundleFixture([
            "A.bundle/Info.plist": "{\n  CFBundleIdentifier = \"com.example.a\";\n  CFBundleName = \"A\"\n}\n",
            "A.bundle/a.txt": "",
            "G.app/Resources/Info-gnustep.plist": "{\n  CFBundleIdentifier = \"com.example.g\";\n  NSMainNibFile = \"x\"\n  CFBundleName = \"G\";\n}\n",
        ])
        let (summary, stderr) = try StringsTableReaderTests.withStandardErrorCaptured { try fixture.build() }
        #expect(!stderr.contains("CFPropertyList"), "\(stderr)")
        let a = try #require(summary.warnings.first { $0.contains("A.bundle/Info.plist") })
        #expect(a.contains("a ';' is missing on line 4"), "\(a)")
        // GNUstep's grammar does not read it either, and says why.
        let g = try #require(summary.warnings.first { $0.contains("Info-gnustep.plist") })
        #expect(g.contains("line 4"), "\(g)")
    }
}

/// OpenStep property-list text for the differential test: dictionaries, arrays and strings nested a
/// few levels, with the strings, escapes and white space of `GeneratedTable`, `key;` shorthand,
/// repeated and non-ASCII keys, trailing commas, data, missing separators, junk after the list,
/// and the encodings and damage `GeneratedTable.make` applies.
enum GeneratedPropertyListText {
    static func make(_ random: inout SeededRandom) -> [UInt8] {
        var text: String
        switch random.below(12) {
        case 0: text = GeneratedTable.space(&random)
        case 1: text = value(&random, depth: 0)
        case 2: text = entries(&random, depth: 0)
        default: text = dictionary(&random, depth: 0)
        }
        text += GeneratedTable.space(&random)
        if random.below(15) == 0 { text += random.pick(["}", ";", "x", ")", "junk", "\"s\""])! }
        var bytes: [UInt8]
        switch random.below(12) {
        case 0: bytes = [0xEF, 0xBB, 0xBF] + Array(text.utf8)
        case 1: bytes = StringsTableReaderTests.utf16(text)
        case 2: bytes = StringsTableReaderTests.utf16(text, bigEndian: true)
        default: bytes = Array(text.utf8)
        }
        switch random.below(20) {
        case 0: bytes = Array(bytes.prefix(random.below(bytes.count + 1)))
        case 1: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: random.below(bytes.count + 1))
        default: break
        }
        return bytes
    }

    static func value(_ random: inout SeededRandom, depth: Int) -> String {
        if random.below(30) == 0 { return random.pick(["<0a0b>", "<>", "<zz>", "", ";", "{", "(", ")", ","])! }
        switch random.below(depth > 3 ? 2 : 6) {
        case 0, 1, 2: return GeneratedTable.string(&random)
        case 3, 4: return dictionary(&random, depth: depth + 1)
        default: return array(&random, depth: depth + 1)
        }
    }

    static func dictionary(_ random: inout SeededRandom, depth: Int) -> String {
        "{" + entries(&random, depth: depth) + GeneratedTable.space(&random) + (random.below(25) == 0 ? "" : "}")
    }

    static func entries(_ random: inout SeededRandom, depth: Int) -> String {
        var text = ""
        for _ in 0..<random.below(6) {
            text += GeneratedTable.space(&random)
            switch random.below(40) {
            case 0, 1, 2, 3: text += random.pick(["a", "\"a\"", "'a'", "Key"])!           // repeated keys
            case 4: text += random.pick(["\"caf\u{E9}\"", "\"\\U00e9\"", "\"e\u{301}\""])!  // not ASCII
            case 5...14: text += GeneratedTable.string(&random)                       // often not ASCII
            default: text += asciiKey(&random)
            }
            text += GeneratedTable.space(&random)
            switch random.below(40) {
            case 0, 1: text += ";"
            case 2: text += "= " + value(&random, depth: depth)                       // no ';'
            default: text += "=" + GeneratedTable.space(&random) + value(&random, depth: depth) + GeneratedTable.space(&random) + ";"
            }
        }
        return text
    }

    /// A key that stays ASCII once read: bare, or quoted with ASCII text and escapes.
    static func asciiKey(_ random: inout SeededRandom) -> String {
        if random.below(3) == 0 { return (0...random.below(6)).map { _ in random.pick(GeneratedTable.bare)! }.joined() }
        let parts = Array("abcXYZ019 _$/:.-=;{}()<>,").map(String.init) + [#"\n"#, #"\t"#, #"\""#, #"\\"#, #"\101"#, #"\U0041"#]
        return "\"" + (0..<random.below(10)).map { _ in random.pick(parts)! }.joined() + "\""
    }

    static func array(_ random: inout SeededRandom, depth: Int) -> String {
        let elements = (0..<random.below(5)).map { _ in value(&random, depth: depth) }
        let separator = random.below(25) == 0 ? " " : "," + GeneratedTable.space(&random)
        return "(" + GeneratedTable.space(&random) + elements.joined(separator: separator)
            + (random.below(4) == 0 ? "," : "") + GeneratedTable.space(&random) + (random.below(25) == 0 ? "" : ")")
    }
}
