import Foundation

/// GNUstep's text property lists: the OpenStep format — `{ key = value; }`, `( a, b )`, quoted
/// and bare strings, `<hex data>`, comments — with GNUstep's typed values, which
/// CoreFoundation does not read: `<*I42>` an integer, `<*R1.5>` a real, `<*BY>` / `<*BN>` a
/// boolean, `<*D2024-01-02 03:04:05 +0100>` a date, and `<[base64]>` data. GNUstep's
/// `NSBundle` reads `Info-gnustep.plist` this way (docs/search-pattern.md, "Which Info.plist
/// file is read"). The grammar is GNUstep's property list parser's, stricter in one respect: a
/// typed value must be well-formed as a whole (GNUstep reads `<*Iabc>` as 0; here it is an
/// error, reported with its line).
struct GNUstepPropertyList {
    /// Why the text is no property list, and the line (from 1) where that was found.
    struct Failure: Error, CustomStringConvertible, Equatable {
        let reason: String
        let line: Int
        var description: String { "\(reason) (line \(line))" }
    }

    private let bytes: [UInt8]
    private var pos = 0
    private var line = 1
    private var depth = 0

    /// Property lists nest at most this deep (a guard for the parser's recursion).
    static let maximumDepth = 200
    /// GNUstep's own bound on a typed value's text.
    static let maximumTypedLength = 4096

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses a whole text: one property list, then only white space and comments.
    static func parse(_ input: [UInt8]) throws(Failure) -> PropertyListValue {
        var parser = GNUstepPropertyList(utf8(input))
        guard parser.skipSpace() else { throw parser.failure("there is no property list in the text") }
        let value = try parser.item()
        if parser.skipSpace() { throw parser.failure("unexpected text after the property list") }
        return value
    }

    /// UTF-8 without its byte order mark; UTF-16 with one, converted.
    private static func utf8(_ input: [UInt8]) -> [UInt8] {
        if input.starts(with: [0xEF, 0xBB, 0xBF]) { return Array(input.dropFirst(3)) }
        if input.starts(with: [0xFF, 0xFE]) || input.starts(with: [0xFE, 0xFF]),
           let text = String(data: Data(input), encoding: .utf16) {
            return Array(text.utf8)
        }
        return input
    }

    private func failure(_ reason: String) -> Failure { Failure(reason: reason, line: line) }

    // MARK: white space and comments

    /// GNUstep's white space: backspace through carriage return, and the space.
    private static func isSpace(_ c: UInt8) -> Bool { (8...13).contains(c) || c == 32 }

    /// Skips white space and `//` and `/* */` comments; true when text remains.
    private mutating func skipSpace() -> Bool {
        while pos < bytes.count {
            let c = bytes[pos]
            if c == UInt8(ascii: "/") && pos + 1 < bytes.count && bytes[pos + 1] == UInt8(ascii: "/") {
                while pos < bytes.count && bytes[pos] != UInt8(ascii: "\n") { pos += 1 }
                continue
            }
            if c == UInt8(ascii: "/") && pos + 1 < bytes.count && bytes[pos + 1] == UInt8(ascii: "*") {
                pos += 2
                while pos + 1 < bytes.count && !(bytes[pos] == UInt8(ascii: "*") && bytes[pos + 1] == UInt8(ascii: "/")) {
                    if bytes[pos] == UInt8(ascii: "\n") { line += 1 }
                    pos += 1
                }
                // An unterminated comment runs to the end: nothing remains (the caller reports it).
                pos = min(pos + 2, bytes.count)
                continue
            }
            guard Self.isSpace(c) else { return true }
            if c == UInt8(ascii: "\n") { line += 1 }
            pos += 1
        }
        return false
    }

    // MARK: items

    private mutating func item() throws(Failure) -> PropertyListValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw failure("nested more than \(Self.maximumDepth) deep") }
        guard skipSpace() else { throw failure("the text ends where a value was expected") }
        switch bytes[pos] {
        case UInt8(ascii: "{"): return try dictionary()
        case UInt8(ascii: "("): return try array()
        case UInt8(ascii: "<"): return try angled()
        case UInt8(ascii: "\""): return .string(try quoted())
        default: return .string(try bare())
        }
    }

    private mutating func dictionary() throws(Failure) -> PropertyListValue {
        pos += 1
        var out: [String: PropertyListValue] = [:]
        while true {
            guard skipSpace() else { throw failure("the text ends inside a dictionary") }
            if bytes[pos] == UInt8(ascii: "}") {
                pos += 1
                return .dictionary(out)
            }
            guard case .string(let key) = try item() else { throw failure("a dictionary key must be a string") }
            guard skipSpace(), bytes[pos] == UInt8(ascii: "=") else { throw failure("'=' expected after the key \"\(key)\"") }
            pos += 1
            let value = try item()
            guard skipSpace() else { throw failure("the text ends inside a dictionary") }
            // GNUstep accepts a missing ';' before the closing brace.
            if bytes[pos] == UInt8(ascii: ";") {
                pos += 1
            } else if bytes[pos] != UInt8(ascii: "}") {
                throw failure("';' or '}' expected after the value of \"\(key)\"")
            }
            out[key] = value
        }
    }

    private mutating func array() throws(Failure) -> PropertyListValue {
        pos += 1
        var out: [PropertyListValue] = []
        while true {
            guard skipSpace() else { throw failure("the text ends inside an array") }
            if bytes[pos] == UInt8(ascii: ")") {
                pos += 1
                return .array(out)
            }
            out.append(try item())
            guard skipSpace() else { throw failure("the text ends inside an array") }
            if bytes[pos] == UInt8(ascii: ",") {
                pos += 1
            } else if bytes[pos] != UInt8(ascii: ")") {
                throw failure("',' or ')' expected in an array")
            }
        }
    }

    /// Characters that end a bare string (GNUstep's "quotable" set): controls, space, the
    /// punctuation of the format, DEL and every byte of a non-ASCII character.
    private static func endsBareString(_ c: UInt8) -> Bool {
        c < 33 || c >= 127 || Array("\"'(),;<=>[\\]`{}".utf8).contains(c)
    }

    private mutating func bare() throws(Failure) -> String {
        let start = pos
        while pos < bytes.count && !Self.endsBareString(bytes[pos]) { pos += 1 }
        guard pos > start else { throw failure("unexpected character \(Self.shown(bytes[pos])) where a value was expected") }
        return String(decoding: bytes[start..<pos], as: UTF8.self)
    }

    private static func shown(_ c: UInt8) -> String {
        (33..<127).contains(c) ? "'\(Character(Unicode.Scalar(c)))'" : "0x" + String(c, radix: 16)
    }

    /// A quoted string: UTF-8 text in which `\` escapes — `\n`, `\t`, `\r`, `\a`, `\b`, `\v`,
    /// `\f`, up to three octal digits, `\U` and up to four hex digits (UTF-16 code units, as in
    /// GNUstep), any other character for itself.
    private mutating func quoted() throws(Failure) -> String {
        let startLine = line
        pos += 1
        let start = pos
        while pos < bytes.count && bytes[pos] != UInt8(ascii: "\"") {
            if bytes[pos] == UInt8(ascii: "\n") { line += 1 }
            if bytes[pos] == UInt8(ascii: "\\") && pos + 1 < bytes.count {
                pos += 1
                if bytes[pos] == UInt8(ascii: "\n") { line += 1 }
            }
            pos += 1
        }
        guard pos < bytes.count else { throw Failure(reason: "a quoted string is not closed", line: startLine) }
        let raw = bytes[start..<pos]
        pos += 1
        guard let text = String(validating: raw, as: UTF8.self) else {
            throw Failure(reason: "a quoted string is not valid UTF-8", line: startLine)
        }
        guard text.contains("\\") else { return text }
        guard let unescaped = Self.unescape(Array(text.utf16)) else {
            throw Failure(reason: "an escape in a quoted string makes invalid Unicode", line: startLine)
        }
        return unescaped
    }

    private static func unescape(_ units: [UInt16]) -> String? {
        var out: [UInt16] = []
        var i = 0
        func digit(_ u: UInt16, radix: UInt16) -> UInt16? {
            guard u < 128, let d = UInt16(String(Character(Unicode.Scalar(UInt8(u)))), radix: Int(radix)) else { return nil }
            return d
        }
        while i < units.count {
            let u = units[i]
            i += 1
            guard u == UInt16(UInt8(ascii: "\\")), i < units.count else { out.append(u); continue }
            let e = units[i]
            i += 1
            if digit(e, radix: 8) != nil {
                var value: UInt16 = 0
                i -= 1
                for _ in 0..<3 {
                    guard i < units.count, let d = digit(units[i], radix: 8) else { break }
                    value = value << 3 | d
                    i += 1
                }
                out.append(value)
            } else if e == UInt16(UInt8(ascii: "U")) || e == UInt16(UInt8(ascii: "u")) {
                var value: UInt16 = 0
                for _ in 0..<4 {
                    guard i < units.count, let d = digit(units[i], radix: 16) else { break }
                    value = value << 4 | d
                    i += 1
                }
                out.append(value)
            } else {
                let mapped: [UInt8: UInt8] = [UInt8(ascii: "a"): 7, UInt8(ascii: "b"): 8, UInt8(ascii: "t"): 9,
                                              UInt8(ascii: "n"): 10, UInt8(ascii: "v"): 11, UInt8(ascii: "f"): 12,
                                              UInt8(ascii: "r"): 13]
                out.append(e < 128 ? mapped[UInt8(e)].map(UInt16.init) ?? e : e)
            }
        }
        return String(validating: out, as: UTF16.self)
    }

    // MARK: <…>: data and typed values

    private mutating func angled() throws(Failure) -> PropertyListValue {
        pos += 1
        if pos < bytes.count && bytes[pos] == UInt8(ascii: "*") { return try typed() }
        if pos < bytes.count && bytes[pos] == UInt8(ascii: "[") { return try base64() }
        return try hexData()
    }

    /// `<hex>`: pairs of hex digits, white space and comments allowed between them.
    private mutating func hexData() throws(Failure) -> PropertyListValue {
        var out: [UInt8] = []
        while skipSpace(), let high = Self.hexValue(bytes[pos]) {
            guard pos + 1 < bytes.count, let low = Self.hexValue(bytes[pos + 1]) else {
                throw failure("hex data must come in pairs of digits")
            }
            out.append(high << 4 | low)
            pos += 2
        }
        guard pos < bytes.count, bytes[pos] == UInt8(ascii: ">") else { throw failure("'>' expected to end hex data") }
        pos += 1
        return .data(out)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `<[base64]>`, characters outside the base64 alphabet ignored (as GNUstep does).
    private mutating func base64() throws(Failure) -> PropertyListValue {
        pos += 1
        let start = pos
        while pos < bytes.count && bytes[pos] != UInt8(ascii: "]") {
            if bytes[pos] == UInt8(ascii: "\n") { line += 1 }
            pos += 1
        }
        guard pos + 1 < bytes.count, bytes[pos + 1] == UInt8(ascii: ">") else { throw failure("']>' expected to end base64 data") }
        let text = Data(bytes[start..<pos])
        pos += 2
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw failure("base64 data that does not decode")
        }
        return .data([UInt8](data))
    }

    /// `<*T…>`: the type letter, then the value up to `>` (it may be in double quotes).
    private mutating func typed() throws(Failure) -> PropertyListValue {
        pos += 1
        let start = pos
        while pos < bytes.count && bytes[pos] != UInt8(ascii: ">") { pos += 1 }
        guard pos < bytes.count else { throw failure("a typed value '<*' is not closed with '>'") }
        var token = bytes[start..<pos]
        pos += 1
        guard let type = token.first, token.count > 1 else { throw failure("a typed value '<*' lacks its type or its value") }
        token = token.dropFirst()
        if token.count > 2 && token.first == UInt8(ascii: "\"") && token.last == UInt8(ascii: "\"") {
            token = token.dropFirst().dropLast()
        }
        guard token.count <= Self.maximumTypedLength else { throw failure("a typed value longer than 4096 bytes") }
        let text = String(decoding: token, as: UTF8.self)
        switch type {
        case UInt8(ascii: "I"):
            guard let n = Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text) else {
                throw failure("<*I\(text)> is not an integer (or is out of range)")
            }
            return .integer(n)
        case UInt8(ascii: "R"):
            guard let r = Double(text) else { throw failure("<*R\(text)> is not a real number") }
            return .real(r)
        case UInt8(ascii: "B"):
            // GNUstep looks at the first letter only (it writes <*BY> and <*BN>).
            switch token.first {
            case UInt8(ascii: "Y"): return .bool(true)
            case UInt8(ascii: "N"): return .bool(false)
            default: throw failure("<*B\(text)> is not a boolean (<*BY> or <*BN>)")
            }
        case UInt8(ascii: "D"):
            guard let seconds = Self.dateSeconds(text) else {
                throw failure("<*D\(text)> is not a date of the form <*D2024-01-31 13:45:00 +0100>")
            }
            return .date(seconds)
        default:
            throw failure("<*\(Character(Unicode.Scalar(type)))…> is not a type GNUstep knows (I, R, B or D)")
        }
    }

    /// `yyyy-mm-dd hh:mm:ss ±hhmm` (GNUstep's calendar format `%Y-%m-%d %H:%M:%S %z`), as
    /// seconds since 1970 UTC.
    static func dateSeconds(_ text: String) -> Double? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3 else { return nil }
        let day = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        let time = parts[1].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        let zone = parts[2]
        guard day.count == 3, time.count == 3, let y = day[0], let m = day[1], let d = day[2],
              let h = time[0], let mi = time[1], let s = time[2],
              (1...12).contains(m), (1...daysIn(month: m, year: y)).contains(d),
              (0...23).contains(h), (0...59).contains(mi), (0...60).contains(s),
              zone.count == 5, let sign = zone.first, sign == "+" || sign == "-",
              let zh = Int(zone.dropFirst().prefix(2)), let zm = Int(zone.suffix(2)), zh <= 23, zm <= 59
        else { return nil }
        let offset = (zh * 3600 + zm * 60) * (sign == "-" ? -1 : 1)
        let days = daysFromEpoch(year: y, month: m, day: d)
        return Double(days * 86_400 + h * 3600 + mi * 60 + s - offset)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        if month == 2 { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28 }
        return [4, 6, 9, 11].contains(month) ? 30 : 31
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar: years counted from
    /// March, so the leap day ends a year, in 400-year eras of 146 097 days.
    private static func daysFromEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
