// The batch protocol's request decoder against JSONSerialization (docs/batch.md, "The request
// decoder"): seeded random lines, valid ones decoded alike, invalid ones refused.
import Foundation
import Testing
import BundleIndexJSON

@Suite("Batch request decoder")
struct BatchRequestTests {
    static let validCases = 20_000
    static let invalidRounds = 400
    /// 400 of each flaw; lines over 1 MiB only every 50th round.
    static let invalidCases = 14 * invalidRounds + invalidRounds / 50

    @Test("random valid lines decode to exactly JSONSerialization's keys and values")
    func validLinesAgreeWithJSONSerialization() throws {
        var generator = RequestLineGenerator(seed: 20_251_123)
        var decoded = BatchRequest()
        var failures: [String] = []
        for _ in 0..<Self.validCases {
            let line = generator.validLine()
            let theirs: [String: Any]
            do {
                guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                    failures.append("JSONSerialization: not an object: \(printable(line))")
                    continue
                }
                theirs = object
            } catch {
                failures.append("JSONSerialization refused a generated line: \(printable(line)): \(error)")
                continue
            }
            do {
                try decoded.decode(line)
            } catch {
                failures.append("refused: \(printable(line)): \(error)")
                continue
            }
            if let difference = Self.difference(decoded, theirs) {
                failures.append("\(difference): \(printable(line))")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) of \(Self.validCases) lines differ; first: \(failures.prefix(5))")
    }

    @Test("random invalid lines are refused; JSONSerialization refuses them too, but for the documented flaws")
    func invalidLinesAreRefused() throws {
        var generator = RequestLineGenerator(seed: 7_000_007)
        var decoded = BatchRequest()
        var failures: [String] = []
        var count = 0
        var serializationAccepted: [RequestLineGenerator.Flaw: Int] = [:]
        for line in generator.invalidLines(rounds: Self.invalidRounds) {
            count += 1
            if (try? decoded.decode(line.bytes)) != nil {
                failures.append("\(line.flaw) decoded: \(printable(line.bytes))")
            }
            // The difference from JSONSerialization is in the flaws it accepts (docs/batch.md).
            if (try? JSONSerialization.jsonObject(with: Data(line.bytes))) != nil {
                serializationAccepted[line.flaw, default: 0] += 1
            }
        }
        #expect(count == Self.invalidCases)
        #expect(failures.isEmpty, "\(failures.count) of \(count) invalid lines; first: \(failures.prefix(5))")
        let lenient = Set(serializationAccepted.keys)
        #expect(lenient.isSubset(of: RequestLineGenerator.Flaw.acceptedByJSONSerialization),
                "JSONSerialization accepts more than documented: \(serializationAccepted)")
    }

    @Test("strings: every escape, surrogate pairs, astral characters, U+0000")
    func strings() throws {
        let request = try BatchRequest(decoding: Array(#"""
            {"a":"\"\\\/\b\f\n\r\t","b":"\u00e9\u00C9\ud83d\ude00😀","c":"x\u0000y","d":[],"e":[null,true,-1.5e2,"s"]}
            """#.utf8))
        #expect(request.value(for: "a") == .string("\"\\/\u{8}\u{C}\n\r\t"))
        #expect(request.value(for: "b") == .string("éÉ😀😀"))
        #expect(request.value(for: "c") == .string("x\u{0}y"))
        #expect(request.value(for: "d") == .array([]))
        #expect(request.value(for: "e") == .array([.null, .bool(true), .number(-150), .string("s")]))
    }

    /// A difference from JSONSerialization: it drops a raw U+FEFF (EF BB BF) at the start of a
    /// string and right after an escape, as if each piece were a document with a byte order mark.
    /// Inside a string it is an ordinary character (RFC 8259), and it is kept here; only a mark
    /// at the very start of the line is skipped.
    @Test("U+FEFF inside strings is a character; at the start of the line a byte order mark")
    func byteOrderMarkInStrings() throws {
        let line = Array("\u{FEFF}{\"a\":\"\u{FEFF}x\",\"b\":\"\\n\u{FEFF}\",\"c\":\"x\u{FEFF}\"}".utf8)
        let request = try BatchRequest(decoding: line)
        #expect(request.value(for: "a") == .string("\u{FEFF}x"))
        #expect(request.value(for: "b") == .string("\n\u{FEFF}"))
        #expect(request.value(for: "c") == .string("x\u{FEFF}"))
        let theirs = try JSONSerialization.jsonObject(with: Data(line)) as? [String: String]
        #expect(theirs?["a"]?.unicodeScalars.elementsEqual("x".unicodeScalars) == true, "JSONSerialization still drops it")
        #expect(theirs?["c"]?.unicodeScalars.elementsEqual("x\u{FEFF}".unicodeScalars) == true)
    }

    @Test("a repeated key keeps its last value, as in JSONSerialization; keys compare byte for byte")
    func repeatedKeys() throws {
        let request = try BatchRequest(decoding: Array(#"{"op":"path","op":"url","\u006fp":"dev","K":1,"\u212a":2}"#.utf8))
        #expect(request.members.count == 5)
        #expect(request.members.map(\.protocolKey) == [.op, .op, .op, nil, nil], "escapes decoded, then compared")
        #expect(request.value(for: "op") == .string("dev"))
        #expect(request.value(for: "K") == .number(1), "the Kelvin sign is another key than K")
        #expect(request.value(for: "\u{212A}") == .number(2))
    }

    /// Where a decoded request and JSONSerialization's object differ, or nil.
    static func difference(_ mine: BatchRequest, _ theirs: [String: Any]) -> String? {
        // Keys by their scalars: Swift's String equality would merge canonically equivalent keys.
        var folded: [[UInt32]: BatchRequest.Value] = [:]
        for member in mine.members {
            folded[member.key.unicodeScalars.map(\.value)] = member.value
            let spelled = BatchRequest.ProtocolKey.allCases.first { $0.name.utf8.elementsEqual(member.key.utf8) }
            guard member.protocolKey == spelled else { return "key \(member.key) taken for \(String(describing: member.protocolKey))" }
        }
        var other: [[UInt32]: Any] = [:]
        for (key, value) in theirs { other[key.unicodeScalars.map(\.value)] = value }
        guard folded.count == other.count else { return "\(folded.count) keys, JSONSerialization \(other.count)" }
        for (key, value) in folded {
            guard let their = other[key] else { return "key \(key) only here" }
            guard same(value, their) else { return "key \(key): \(value) vs \(their)" }
        }
        return nil
    }

    static func same(_ value: BatchRequest.Value, _ their: Any) -> Bool {
        switch value {
        case .string(let s): return (their as? String)?.unicodeScalars.elementsEqual(s.unicodeScalars) ?? false
        case .null: return their is NSNull
        case .bool(let b):
            guard let n = their as? NSNumber, ["c", "B"].contains(String(cString: n.objCType)) else { return false }
            return n.boolValue == b
        case .number(let d):
            guard let n = their as? NSNumber, !["c", "B"].contains(String(cString: n.objCType)) else { return false }
            // JSONSerialization reads some numbers (exponents, many digits) as NSDecimalNumber,
            // whose doubleValue can be an ulp or two from the nearest Double, which is what this
            // decoder gives (strtod). The protocol only checks that a value is not a number.
            return n.doubleValue == d || abs(n.doubleValue - d) <= 4 * d.ulp
        case .array(let elements):
            guard let theirs = their as? [Any], theirs.count == elements.count else { return false }
            return zip(elements, theirs).allSatisfy { same($0, $1) }
        }
    }
}

/// A line for a failure message: printable ASCII kept, everything else as \xNN.
func printable(_ bytes: [UInt8]) -> String {
    let text = bytes.prefix(300).map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined()
    return bytes.count > 300 ? text + "… (\(bytes.count) bytes)" : text
}

/// Seeded random request lines: valid ones in every spelling JSON allows (key order, repeated
/// keys, whitespace, escapes, non-ASCII and astral characters, numbers), and invalid ones with
/// one flaw each.
struct RequestLineGenerator {
    var rng: SeededRandom
    private var serial = 0

    init(seed: UInt64) { rng = SeededRandom(state: seed) }

    mutating func chance(_ percent: Int) -> Bool { rng.below(100) < percent }

    static let keys = ["bundle", "op", "name", "type", "dir", "loc", "key", "prefs", "from"]

    mutating func validLine() -> [UInt8] {
        var members: [String] = []
        for key in Self.keys where chance(55) {
            members.append(member(key))
            if chance(8) { members.append(member(key)) }   // the same key again: the last wins
        }
        for _ in 0..<rng.below(3) {
            // Other keys, unique even under canonical equivalence thanks to their serial number.
            serial += 1
            members.append("\"x\(serial)_" + stringBody() + "\"" + space() + ":" + space() + value(arrays: true))
        }
        shuffle(&members)
        var line = (chance(3) ? "\u{FEFF}" : "") + space() + "{" + space()
        line += members.joined(separator: space() + "," + space())
        line += space() + "}" + space()
        return Array(line.utf8)
    }

    mutating func member(_ key: String) -> String {
        let spelled = chance(10) ? escapedKey(key) : key
        return "\"" + spelled + "\"" + space() + ":" + space() + value(arrays: key == "prefs" || key == "from" || chance(5))
    }

    /// `key` with some of its letters as \u escapes.
    mutating func escapedKey(_ key: String) -> String {
        var out = ""
        for u in key.unicodeScalars { out += chance(40) ? unicodeEscape(u.value) : String(u) }
        return out
    }

    mutating func value(arrays: Bool) -> String {
        if arrays && chance(60) {
            var elements: [String] = []
            for _ in 0..<rng.below(5) { elements.append(chance(85) ? "\"" + stringBody() + "\"" : value(arrays: false)) }
            return "[" + space() + elements.joined(separator: space() + "," + space()) + space() + "]"
        }
        switch rng.below(20) {
        case 0..<12: return "\"" + stringBody() + "\""
        case 12..<15: return "null"
        case 15: return "true"
        case 16: return "false"
        default: return number()
        }
    }

    mutating func number() -> String {
        var s = chance(30) ? "-" : ""
        s += chance(20) ? "0" : String(1 + rng.below(9)) + digits(rng.below(10))
        if chance(30) { s += "." + digits(1 + rng.below(5)) }
        if chance(20) { s += (chance(50) ? "e" : "E") + ["", "+", "-"][rng.below(3)] + String(rng.below(25)) }
        return s
    }

    mutating func digits(_ n: Int) -> String { String((0..<n).map { _ in Character(String(rng.below(10))) }) }

    /// JSON whitespace, mostly none.
    mutating func space() -> String {
        guard chance(25) else { return "" }
        return String((0...rng.below(3)).map { _ in [" ", "\t", "\r", "\n"][rng.below(4)] as Character })
    }

    /// The inside of a JSON string literal: plain and escaped characters of every kind.
    mutating func stringBody() -> String {
        var s = ""
        for _ in 0..<rng.below(14) {
            switch rng.below(12) {
            case 0..<4:
                // Printable ASCII but the quote and the backslash.
                var c = 0x20 + rng.below(0x5F)
                if c == 0x22 || c == 0x5C { c = 0x41 }
                s.unicodeScalars.append(UnicodeScalar(UInt8(c)))
            case 4: s += ["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"][rng.below(8)]
            case 5: s += unicodeEscape(bmpScalar(includingControls: true))
            case 6:
                // An astral character as a surrogate pair.
                let v = UInt32(0x10000 + rng.below(0x100000)) - 0x10000
                s += unicodeEscape(0xD800 + (v >> 10)) + unicodeEscape(0xDC00 + (v & 0x3FF))
            case 7: s.unicodeScalars.append(UnicodeScalar(UInt32(0x10000 + rng.below(0x100000)))!)
            case 8: s.unicodeScalars.append(UnicodeScalar(bmpScalar(includingControls: false))!)
            // Not a raw U+FEFF: JSONSerialization drops it at the start of a string and after an
            // escape (see `byteOrderMarkInStrings`); escaped, it is one of the BMP scalars above.
            case 9: s += ["é", "e\u{301}", "日本", "Å", "\u{212B}", "\u{7F}", "\u{FFFE}", "\u{FFFF}"][rng.below(8)]
            case 10: s += "\\u0000"
            default: s += "/"
            }
        }
        return s
    }

    /// A BMP scalar that is not a surrogate; ASCII controls only when asked.
    mutating func bmpScalar(includingControls: Bool) -> UInt32 {
        while true {
            let v = UInt32(rng.below(0x10000))
            if (0xD800...0xDFFF).contains(v) { continue }
            if !includingControls && (v < 0x20 || v == 0x22 || v == 0x5C || v == 0xFEFF) { continue }
            return v
        }
    }

    /// `\uXXXX`, hexadecimal digits in either case.
    mutating func unicodeEscape(_ v: UInt32) -> String {
        let hex = String(v, radix: 16, uppercase: chance(50))
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    mutating func shuffle(_ a: inout [String]) {
        guard a.count > 1 else { return }
        for i in stride(from: a.count - 1, to: 0, by: -1) { a.swapAt(i, rng.below(i + 1)) }
    }

    /// One flaw per invalid line.
    enum Flaw: CaseIterable {
        case badEscape, loneSurrogate, rawControl, notUTF8, nested, hugeNumber, badNumber, badLiteral,
             trailingGarbage, truncated, missingColon, missingComma, trailingComma, notAnObject, overlong

        /// What JSONSerialization accepts although the protocol does not: nesting, a comma
        /// before `}` or `]` (it is lenient there), JSON that is not an object (`[]`, `1`), and
        /// lines over the protocol's limit (it has none).
        static let acceptedByJSONSerialization: Set<Flaw> = [.nested, .trailingComma, .notAnObject, .overlong]
    }

    /// `rounds` lines of each flaw, lines over 1 MiB only every 50th round.
    mutating func invalidLines(rounds: Int) -> [(flaw: Flaw, bytes: [UInt8])] {
        var lines: [(flaw: Flaw, bytes: [UInt8])] = []
        for round in 0..<rounds {
            for flaw in Flaw.allCases where flaw != .overlong || round % 50 == 0 {
                lines.append((flaw, invalidLine(flaw)))
            }
        }
        return lines
    }

    mutating func invalidLine(_ flaw: Flaw) -> [UInt8] {
        let head = #"{"bundle":"com.example.phone","op":"path","name":"#
        let good = "\"" + stringBody() + "\""
        // Plain text of any length around a flaw inside a string: the decoder reads eight bytes at
        // a time, and the flaw must be found at every offset ("z" is no hexadecimal digit).
        let before = String(repeating: "a", count: rng.below(20)), after = String(repeating: "z", count: rng.below(20))
        func inString(_ bad: String) -> String { head + "\"" + before + bad + after + "\"}" }
        switch flaw {
        case .badEscape:
            return Array(inString(["\\x", "\\u12G4", "\\u12", "\\U0041", "\\a", "\\'", "\\\u{e9}", "\\0"][rng.below(8)]).utf8)
        case .loneSurrogate:
            let high = unicodeEscape(UInt32(0xD800 + rng.below(0x400))), low = unicodeEscape(UInt32(0xDC00 + rng.below(0x400)))
            return Array(inString([high, low, high + "x", high + "\\u0041", high + high, low + high, high + "\\n"][rng.below(7)]).utf8)
        case .rawControl:
            return Array((head + "\"" + before).utf8) + [UInt8(rng.below(0x20))] + Array((after + "\"}").utf8)
        case .notUTF8:
            let bad: [[UInt8]] = [[0xFF], [0xFE], [0x80], [0xC0, 0xAF], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xE2, 0x82],
                                  [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0xC3]]
            return Array((head + "\"" + before).utf8) + bad[rng.below(bad.count)] + Array((after + "\"}").utf8)
        case .nested:
            return Array((head + good + ",\"x\":" + [#"{"a":1}"#, "{}", "[[]]", #"["a",["b"]]"#, #"[{"a":"b"}]"#][rng.below(5)] + "}").utf8)
        case .hugeNumber:
            let huge = ["1e999", "-1e400", "1" + digits(400), "-9" + digits(320) + ".5", "2E+309"][rng.below(5)]
            return Array((head + good + ",\"n\":" + huge + "}").utf8)
        case .badNumber:
            return Array((head + ["01", "-", "1.", ".5", "+1", "1e", "1e+", "--1", "0x10", "1.2.3", "NaN", "Infinity", "-Infinity"][rng.below(13)] + "}").utf8)
        case .badLiteral:
            return Array((head + ["tru", "nul", "falsey", "True", "NULL", "'x'", "undefined", "n"][rng.below(8)] + "}").utf8)
        case .trailingGarbage:
            return Array((head + good + "}" + [" x", "}", ",", "{}", " \"a\"", "\u{0}", "]"][rng.below(7)]).utf8)
        case .truncated:
            // Any cut before the closing brace leaves an unfinished object.
            let whole = validLine()
            let close = whole.lastIndex(of: UInt8(ascii: "}"))!
            return Array(whole[..<rng.below(close + 1)])
        case .missingColon:
            return Array((head + good + "," + space() + good + space() + good + "}").utf8)
        case .missingComma:
            return Array((head + good + space() + good + space() + ":" + good + "}").utf8)
        case .trailingComma:
            return Array([#"{"bundle":"com.example.phone","op":"dev",}"#, #"{"bundle":"x","op":"preferredFrom","prefs":["en",]}"#][rng.below(2)].utf8)
        case .notAnObject:
            return Array(["", " ", "[]", "\"op\"", "1", "null", "true", "[{\"op\":\"dev\"}]", "{", "}", "{\"op\"}", "\u{FEFF}"][rng.below(12)].utf8)
        case .overlong:
            return Array(head.utf8) + [0x22] + Array(repeating: UInt8(ascii: "x"), count: BatchRequest.maximumLineLength) + Array("\"}".utf8)
        }
    }
}
