// The scanner behind BatchRequest.decode: one pass over one line of the batch protocol's flat
// JSON objects (docs/batch.md, "Why a narrow codec").

private let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), slash = UInt8(ascii: "/")
private let colon = UInt8(ascii: ":"), comma = UInt8(ascii: ","), minus = UInt8(ascii: "-"), plus = UInt8(ascii: "+")
private let openBrace = UInt8(ascii: "{"), closeBrace = UInt8(ascii: "}")
private let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")
private let digit0 = UInt8(ascii: "0"), digit9 = UInt8(ascii: "9"), point = UInt8(ascii: ".")


/// Eight bytes at a time: whether a word of text holds a byte a JSON string cannot carry as it
/// is (`"`, `\\`, a control character), with the classic "has a byte less than" tests, which are
/// exact when asked whether any byte matches.
enum PlainBytes {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highBits: UInt64 = 0x8080_8080_8080_8080

    @inline(__always)
    static func special(_ word: UInt64) -> Bool {
        lessThan(word ^ (ones &* 0x22), 1) | lessThan(word ^ (ones &* 0x5C), 1) | lessThan(word, 0x20) != 0
    }

    /// Non-zero when some byte of `word` is below `n` (n ≤ 128).
    @inline(__always)
    static func lessThan(_ word: UInt64, _ n: UInt64) -> UInt64 {
        (word &- ones &* n) & ~word & highBits
    }
}

/// One pass over one line. Reads through an unsafe buffer: every index is checked against
/// `end` before it is read.
struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let end: Int
    var i = 0
    var scratch: [UInt8] = []
    var containsNUL = false
    /// Which protocol key the last key read was, if any.
    var lastProtocolKey: BatchRequest.ProtocolKey?

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        self.end = bytes.count
    }

    func fail(_ reason: String, at offset: Int? = nil) -> BatchRequest.Malformed {
        BatchRequest.Malformed(reason: reason, offset: offset ?? i)
    }

    /// The byte at `i`, or nil at the end of the line.
    var current: UInt8? { i < end ? bytes[i] : nil }

    mutating func skipWhitespace() {
        while i < end {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws(BatchRequest.Malformed) {
        guard current == byte else { throw fail(current == nil ? "the line ends where \(what) should be" : "expected \(what)") }
        i += 1
    }

    /// The whole line: optional byte order mark, whitespace, one object, whitespace.
    mutating func object(into members: inout [BatchRequest.Member]) throws(BatchRequest.Malformed) {
        if end >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { i = 3 }
        skipWhitespace()
        guard current == openBrace else {
            throw fail(current == nil ? "the line has no JSON object" : "a request must be a JSON object")
        }
        i += 1
        skipWhitespace()
        if current == closeBrace {
            i += 1
        } else {
            while true {
                guard current == quote else {
                    throw fail(current == nil ? "the line ends inside the object" : "expected a key (a string)")
                }
                i += 1
                let key = try string(isKey: true)
                let protocolKey = lastProtocolKey
                skipWhitespace()
                try expect(colon, "':' after the key")
                skipWhitespace()
                let value = try value(inArray: false)
                members.append(BatchRequest.Member(key: key, value: value, protocolKey: protocolKey))
                skipWhitespace()
                guard let c = current else { throw fail("the line ends inside the object") }
                i += 1
                if c == closeBrace { break }
                guard c == comma else { throw fail("expected ',' or '}'", at: i - 1) }
                skipWhitespace()
            }
        }
        skipWhitespace()
        guard i == end else { throw fail("unexpected text after the object") }
    }

    mutating func value(inArray: Bool) throws(BatchRequest.Malformed) -> BatchRequest.Value {
        guard let c = current else { throw fail("the line ends where a value should be") }
        switch c {
        case quote:
            i += 1
            return .string(try string())
        case minus, digit0...digit9:
            return .number(try number())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case openBracket where !inArray:
            i += 1
            return .array(try arrayElements())
        case openBracket, openBrace:
            throw fail("nested values are not part of the protocol (only flat arrays)")
        default:
            throw fail("expected a value")
        }
    }

    mutating func literal(_ word: StaticString) throws(BatchRequest.Malformed) {
        let n = word.utf8CodeUnitCount
        guard end - i >= n else { throw fail("expected a value") }
        for k in 0..<n where bytes[i + k] != word.utf8Start[k] { throw fail("expected a value") }
        i += n
    }

    /// After `[`: scalar values up to `]`.
    mutating func arrayElements() throws(BatchRequest.Malformed) -> [BatchRequest.Value] {
        var elements: [BatchRequest.Value] = []
        skipWhitespace()
        if current == closeBracket {
            i += 1
            return elements
        }
        while true {
            skipWhitespace()
            elements.append(try value(inArray: true))
            skipWhitespace()
            guard let c = current else { throw fail("the line ends inside an array") }
            i += 1
            if c == closeBracket { return elements }
            guard c == comma else { throw fail("expected ',' or ']'", at: i - 1) }
        }
    }

    /// RFC 8259's number grammar; the value must be a finite `Double`.
    mutating func number() throws(BatchRequest.Malformed) -> Double {
        let start = i
        if current == minus { i += 1 }
        guard let first = current, first >= digit0 && first <= digit9 else { throw fail("expected a digit") }
        i += 1
        if first == digit0, let c = current, c >= digit0 && c <= digit9 { throw fail("a number may not start with 0") }
        skipDigits()
        if current == point {
            i += 1
            guard let c = current, c >= digit0 && c <= digit9 else { throw fail("expected a digit after '.'") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            i += 1
            if current == plus || current == minus { i += 1 }
            guard let c = current, c >= digit0 && c <= digit9 else { throw fail("expected a digit in the exponent") }
            skipDigits()
        }
        // Numbers are rare in requests (the protocol has none): the text goes through a String.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw fail("the number does not fit a Double", at: start) }
        return value
    }

    mutating func skipDigits() {
        while i < end && bytes[i] >= digit0 && bytes[i] <= digit9 { i += 1 }
    }

    /// After the opening `"`: the string up to its closing quote, escapes decoded, UTF-8 checked.
    mutating func string(isKey: Bool = false) throws(BatchRequest.Malformed) -> String {
        let start = i
        // The common case: no escape; the bytes become the string as they are. Eight bytes at a
        // time up to the first quote, backslash or control character.
        var seen: UInt64 = 0
        if let base = bytes.baseAddress {
            while end - i >= 8 {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if PlainBytes.special(word) { break }
                seen |= word
                i += 8
            }
        }
        var ascii = seen & PlainBytes.highBits == 0
        while i < end {
            let c = bytes[i]
            if c == quote {
                let run = UnsafeBufferPointer(rebasing: bytes[start..<i])
                i += 1
                // The protocol's own keys come back as the same strings every time.
                if isKey {
                    lastProtocolKey = ascii ? .spelled(by: run) : nil
                    if let known = lastProtocolKey { return known.name }
                }
                return try text(run, ascii: ascii, at: start)
            }
            if c == backslash { break }
            if c < 0x20 { throw fail("a control character must be escaped in a string") }
            if c >= 0x80 { ascii = false }
            i += 1
        }
        guard i < end else { throw fail("the line ends inside a string") }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
        while i < end {
            let c = bytes[i]
            if c == quote {
                i += 1
                // The escapes wrote whole UTF-8 sequences, so checking everything checks the raw
                // bytes between them: a sequence cut by an escape stays invalid.
                return try scratch.withUnsafeBufferPointer { (run) throws(BatchRequest.Malformed) -> String in
                    if isKey {
                        lastProtocolKey = .spelled(by: run)
                        if let known = lastProtocolKey { return known.name }
                    }
                    return try text(run, ascii: ascii, at: start)
                }
            }
            if c == backslash {
                try escape()
                continue
            }
            if c < 0x20 { throw fail("a control character must be escaped in a string") }
            if c >= 0x80 { ascii = false }
            scratch.append(c)
            i += 1
        }
        throw fail("the line ends inside a string")
    }

    func text(_ run: UnsafeBufferPointer<UInt8>, ascii: Bool, at start: Int) throws(BatchRequest.Malformed) -> String {
        if ascii { return String(decoding: run, as: UTF8.self) }
        guard let s = String(validating: run, as: UTF8.self) else { throw fail("the string is not valid UTF-8", at: start) }
        return s
    }

    /// At a backslash: appends the escaped character to `scratch`.
    mutating func escape() throws(BatchRequest.Malformed) {
        let at = i
        i += 1
        guard let c = current else { throw fail("the line ends inside an escape") }
        i += 1
        switch c {
        case quote, backslash, slash: scratch.append(c)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                // A high surrogate must be followed by an escaped low one; together they are one scalar.
                guard end - i >= 6, bytes[i] == backslash, bytes[i + 1] == UInt8(ascii: "u") else {
                    throw fail("a lone surrogate (\\u\(hex(scalar)) without its low half)", at: at)
                }
                i += 2
                let low = try hex4()
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw fail("a lone surrogate (\\u\(hex(scalar)) without its low half)", at: at)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw fail("a lone surrogate (\\u\(hex(scalar)) without its high half)", at: at)
            }
            if scalar == 0 { containsNUL = true }
            appendUTF8(scalar)
        default:
            throw fail("an unknown escape", at: at)
        }
    }

    /// Four hexadecimal digits, either case.
    mutating func hex4() throws(BatchRequest.Malformed) -> UInt32 {
        guard end - i >= 4 else { throw fail("the line ends inside a \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            let d: UInt8
            switch c {
            case digit0...digit9: d = c - digit0
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
            default: throw fail("expected four hexadecimal digits after \\u")
            }
            v = v << 4 | UInt32(d)
            i += 1
        }
        return v
    }

    func hex(_ v: UInt32) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    mutating func appendUTF8(_ v: UInt32) {
        switch v {
        case 0..<0x80:
            scratch.append(UInt8(v))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | v >> 6))
            scratch.append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | v >> 12))
            scratch.append(UInt8(0x80 | v >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | v & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | v >> 18))
            scratch.append(UInt8(0x80 | v >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | v >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | v & 0x3F))
        }
    }
}
