/// A narrow reader of the OpenStep text form of `.strings` files — `"key" = "value";` lines,
/// with or without the outer braces, in UTF-8 (with or without a byte-order mark) or UTF-16 with
/// one (decoded by `OpenStepText`) — that answers exactly what CoreFoundation's old-style parser
/// (`__CFCreateOldStylePropertyListOrStringsFile`) makes of such a file, several times faster
/// (docs/scanning.md, "Reading strings tables"; docs/performance.md).
///
/// It answers only when it is certain; otherwise CF is asked: XML and binary property lists,
/// other encodings, text that is not valid UTF-8 or UTF-16, lone surrogates, values that are not
/// strings (a dictionary, an array, data), an octal escape above `\177` (CF maps it through
/// the NeXTSTEP Latin table), and text CF would not read as a table — except the two failures
/// CF reports by writing a line to standard error (`_CFPropertyListMissingSemicolon…`: the text
/// ends after a key, or an entry's value is not followed by `;`). For those the parser is
/// certain too: CF reads no table (nor property list), and the build says which file and line,
/// where CF's line named neither (`StringsTableReader`, `PropertyListReader`), without asking CF,
/// so CF's line is not written. `StringsTableReaderTests` and `PropertyListReaderTests` compare
/// the two on every real file and on generated ones.
struct OpenStepStringsParser {
    /// UTF-8 without a byte-order mark.
    private let text: [UInt8]
    private var at = 0
    /// The keys and values read, unescaped, one after another (`StringsTable.Entries`' text).
    private var out: [UInt8] = []
    /// Where CF's parse would stop with a missing `;` (see the type's comment).
    private var missingSemicolonAt: Int?

    private init(text: [UInt8]) {
        self.text = text
        out.reserveCapacity(text.count)
    }

    /// What the parser makes of a file.
    enum Reading: Equatable {
        /// The table's entries (each key once, with the value CF keeps: the last one written).
        case entries(StringsTable.Entries)
        /// CF reads no table: a `;` is missing on this line (counted as CF counts lines).
        case missingSemicolon(line: Int)
        /// CF must decide.
        case leftToCF
    }

    static func read(_ bytes: [UInt8]) -> Reading {
        guard let text = OpenStepText.utf8(bytes) else { return .leftToCF }
        var parser = OpenStepStringsParser(text: text)
        if let entries = parser.table() { return .entries(entries) }
        guard let stop = parser.missingSemicolonAt else { return .leftToCF }
        return .missingSemicolon(line: parser.lineNumber(at: stop))
    }

    /// The entries CF reads from the file (none for a missing `;`), or nil when CF must decide.
    static func entries(from bytes: [UInt8]) -> [StringsTable.Entry]? {
        switch read(bytes) {
        case .entries(let entries): return entries.list
        case .missingSemicolon: return []
        case .leftToCF: return nil
        }
    }

    /// What CF's old-style parser makes of `bytes` read as a property list — an Info.plist or
    /// Info-gnustep.plist in OpenStep text: dictionaries, arrays and strings, every value a
    /// string — or nil when CF must decide. Besides what the type's comment leaves to CF: data
    /// (`<…>`), any text CF would not read but for a missing `;` (`readPropertyList` tells that
    /// one; either way `PropertyListReader` may then read the text with GNUstep's grammar), text
    /// that decodes to nothing (CF reads no property list from it), keys that are not ASCII (CF
    /// keeps apart keys that a Swift dictionary merges), and nesting deeper than `maximumDepth`.
    /// `PropertyListReaderTests` compares the two.
    static func propertyList(from bytes: [UInt8]) -> PropertyListValue? {
        if case .value(let value) = readPropertyList(bytes) { value } else { nil }
    }

    /// What the parser makes of a property list (see `propertyList(from:)`).
    enum PropertyListReading: Equatable {
        case value(PropertyListValue)
        /// CF reads no property list: a `;` is missing on this line, the failure CF writes to
        /// standard error (the type's comment), reached where everything before it was read as
        /// CF reads it.
        case missingSemicolon(line: Int)
        /// CF must decide.
        case leftToCF
    }

    static func readPropertyList(_ bytes: [UInt8]) -> PropertyListReading {
        guard let text = OpenStepText.utf8(bytes), !text.isEmpty else { return .leftToCF }
        var parser = OpenStepStringsParser(text: text)
        if let value = parser.topLevelPropertyList() { return .value(value) }
        // CF gives up at the first missing `;`, whatever encloses it: no object is parsed again.
        guard let stop = parser.missingSemicolonAt else { return .leftToCF }
        return .missingSemicolon(line: parser.lineNumber(at: stop))
    }

    /// Deeper nesting is left to CF (which allows 512 levels; the index keeps 200).
    static let maximumDepth = 64

    // MARK: - the grammar (CF's parsePlistObject, parsePlistDictContent)

    /// A top-level `{ … }`, or entries without braces (CF sees a string followed by more text,
    /// then parses the whole text again as a dictionary's content). White space alone is an
    /// empty table.
    private mutating func table() -> StringsTable.Entries? {
        guard skipSpace() else { return StringsTable.Entries() }
        if text[at] == UInt8(ascii: "{") {
            at += 1
            guard let entries = content(), skipSpace(), text[at] == UInt8(ascii: "}") else { return nil }
            at += 1
            return skipSpace() ? nil : entries
        }
        // The first object must be a string, and text must follow it (a lone string is no table).
        guard Self.startsString(text[at]), string() != nil, skipSpace() else { return nil }
        at = 0
        out.removeAll(keepingCapacity: true)
        guard let entries = content(), !skipSpace() else { return nil }
        return entries
    }

    /// `key = value;` and `key;` (the value is the key) until something that starts no key.
    private mutating func content() -> StringsTable.Entries? {
        var spans: [StringsTable.Entries.Span] = []
        var hashes: [UInt64] = []
        while skipSpace(), Self.startsString(text[at]) {
            guard let key = string() else { return nil }
            guard skipSpace() else {
                missingSemicolonAt = at
                return nil
            }
            let value: Range<Int>
            switch text[at] {
            case UInt8(ascii: ";"):
                value = key
            case UInt8(ascii: "="):
                at += 1
                // A value that is not a string (`{`, `(`, `<`) is CF's to read.
                guard skipSpace(), Self.startsString(text[at]), let string = string() else { return nil }
                value = string
            default:
                return nil
            }
            spans.append(StringsTable.Entries.Span(key: key, value: value))
            hashes.append(out.withUnsafeBytes { RepeatedKeys.hash(UnsafeRawBufferPointer(rebasing: $0[key])) })
            guard skipSpace(), text[at] == UInt8(ascii: ";") else {
                missingSemicolonAt = at
                return nil
            }
            at += 1
        }
        return RepeatedKeys.lastValues(text: out, spans: spans, hashes: hashes)
    }

    private static func startsString(_ c: UInt8) -> Bool {
        c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") || isBare(c)
    }

    /// CF's `isValidUnquotedStringCharacter`.
    private static func isBare(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// A quoted or bare string at `at` (which `startsString`), its UTF-8 appended to `out`: where
    /// it lies there.
    private mutating func string() -> Range<Int>? {
        let first = text[at]
        let start = out.count
        guard first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") else {
            let bare = at
            while at < text.count && Self.isBare(text[at]) { at += 1 }
            out.append(contentsOf: text[bare..<at])
            return start..<out.count
        }
        at += 1
        return quoted(until: first) ? start..<out.count : nil
    }

    /// CF's `parseQuotedPlistString`: the text up to the closing quote, escapes resolved,
    /// appended to `out`; false when unterminated or when an escape is left to CF.
    private mutating func quoted(until quote: UInt8) -> Bool {
        var mark = at
        // A high surrogate written as `\UD83D`, waiting for its low half (`\UDE00`).
        var high: UInt32? = nil
        while at < text.count {
            let c = text[at]
            if c == quote { break }
            guard c == UInt8(ascii: "\\") else { at += 1; continue }
            if high != nil && mark < at { return false }
            out.append(contentsOf: text[mark..<at])
            at += 1
            guard at < text.count else { return false }
            let escaped = text[at]
            at += 1
            var unit: UInt32
            switch escaped {
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                // At most three digits, in a byte (CF's `uint8_t`: `\777` wraps).
                var byte = escaped &- UInt8(ascii: "0")
                for _ in 0..<2 {
                    guard at < text.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(text[at]) else { break }
                    byte = byte &<< 3 &+ (text[at] &- UInt8(ascii: "0"))
                    at += 1
                }
                guard byte < 0x80 else { return false }
                unit = UInt32(byte)
            case UInt8(ascii: "U"):
                // Up to four hexadecimal digits; none is U+0000.
                unit = 0
                for _ in 0..<4 {
                    guard at < text.count, let digit = Self.hexDigit(text[at]) else { break }
                    unit = unit << 4 | digit
                    at += 1
                }
            case UInt8(ascii: "a"): unit = 0x07
            case UInt8(ascii: "b"): unit = 0x08
            case UInt8(ascii: "f"): unit = 0x0C
            case UInt8(ascii: "n"): unit = 0x0A
            case UInt8(ascii: "r"): unit = 0x0D
            case UInt8(ascii: "t"): unit = 0x09
            case UInt8(ascii: "v"): unit = 0x0B
            case 0x80...:
                // Any other character stands for itself: a non-ASCII one is copied as text.
                at -= 1
                mark = at
                continue
            default:
                unit = UInt32(escaped)
            }
            mark = at
            if let h = high {
                guard (0xDC00...0xDFFF).contains(unit) else { return false }
                OpenStepText.appendUTF8(0x10000 + ((h - 0xD800) << 10) + (unit - 0xDC00), to: &out)
                high = nil
            } else if (0xD800...0xDBFF).contains(unit) {
                high = unit
            } else if (0xDC00...0xDFFF).contains(unit) {
                return false
            } else {
                OpenStepText.appendUTF8(unit, to: &out)
            }
        }
        // Unterminated, or a high surrogate left without its low half.
        guard at < text.count, high == nil else { return false }
        at += 1
        out.append(contentsOf: text[mark..<at - 1])
        return true
    }

    private static func hexDigit(_ c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(c - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(c - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    // MARK: - property lists (CF's parsePlistObject, parsePlistArray, parsePlistDictContent)

    /// White space alone is an empty dictionary; a value followed by more text is read again
    /// from the start as a dictionary's content when it is a string (a strings file), and is
    /// CF's error otherwise. Text left after that content is left to CF, which ignores it.
    private mutating func topLevelPropertyList() -> PropertyListValue? {
        guard skipSpace() else { return .dictionary([:]) }
        guard let value = object(depth: 0) else { return nil }
        guard skipSpace() else { return value }
        guard case .string = value else { return nil }
        at = 0
        out.removeAll(keepingCapacity: true)
        guard let dictionary = dictionaryContent(depth: 0), !skipSpace() else { return nil }
        return dictionary
    }

    /// A dictionary, an array or a string at the next non-space character.
    private mutating func object(depth: Int) -> PropertyListValue? {
        guard depth <= Self.maximumDepth, skipSpace() else { return nil }
        switch text[at] {
        case UInt8(ascii: "{"):
            at += 1
            guard let dictionary = dictionaryContent(depth: depth), skipSpace(), text[at] == UInt8(ascii: "}") else { return nil }
            at += 1
            return dictionary
        case UInt8(ascii: "("):
            at += 1
            return array(depth: depth)
        default:
            // Data (`<`) and anything that starts no object are CF's.
            guard Self.startsString(text[at]), let range = string() else { return nil }
            return .string(makeString(range))
        }
    }

    /// `key = value;` and `key;` (the value is the key) until something that starts no key. A
    /// key written twice keeps its last value, as CF's dictionary does.
    private mutating func dictionaryContent(depth: Int) -> PropertyListValue? {
        var entries: [String: PropertyListValue] = [:]
        while skipSpace(), Self.startsString(text[at]) {
            guard let keyRange = string(), !out[keyRange].contains(where: { $0 >= 0x80 }) else { return nil }
            let key = makeString(keyRange)
            guard skipSpace() else {
                missingSemicolonAt = at
                return nil
            }
            switch text[at] {
            case UInt8(ascii: ";"):
                entries[key] = .string(key)
            case UInt8(ascii: "="):
                at += 1
                guard let value = object(depth: depth + 1) else { return nil }
                entries[key] = value
            default:
                return nil
            }
            guard skipSpace(), text[at] == UInt8(ascii: ";") else {
                missingSemicolonAt = at
                return nil
            }
            at += 1
        }
        return .dictionary(entries)
    }

    /// After the `(`: elements separated by `,`, a trailing `,` allowed, then `)`.
    private mutating func array(depth: Int) -> PropertyListValue? {
        var elements: [PropertyListValue] = []
        guard skipSpace() else { return nil }
        if text[at] != UInt8(ascii: ")") {
            while true {
                guard let element = object(depth: depth + 1) else { return nil }
                elements.append(element)
                guard skipSpace(), text[at] == UInt8(ascii: ",") else { break }
                at += 1
                guard skipSpace() else { return nil }
                if text[at] == UInt8(ascii: ")") { break }
            }
        }
        guard skipSpace(), text[at] == UInt8(ascii: ")") else { return nil }
        at += 1
        return .array(elements)
    }

    /// The text `string()` wrote at `range` (valid UTF-8: the text was, and every escape wrote
    /// a scalar).
    private func makeString(_ range: Range<Int>) -> String {
        String(decoding: out[range], as: UTF8.self)
    }

    // MARK: - white space and comments (CF's advanceToNonSpace)

    /// Skips white space (tab through carriage return, space, U+2028, U+2029), `// …` to the end
    /// of the line and `/* … */` (unterminated: to the end); true when text remains.
    private mutating func skipSpace() -> Bool {
        while at < text.count {
            let c = text[at]
            if (9...13).contains(c) || c == 32 {
                at += 1
            } else if isParagraphOrLineSeparator(at) {
                at += 3
            } else if c == UInt8(ascii: "/") && at + 1 < text.count && text[at + 1] == UInt8(ascii: "/") {
                at += 2
                while at < text.count && text[at] != 10 && text[at] != 13 && !isParagraphOrLineSeparator(at) { at += 1 }
            } else if c == UInt8(ascii: "/") && at + 1 < text.count && text[at + 1] == UInt8(ascii: "*") {
                at += 2
                while at < text.count {
                    at += 1
                    if text[at - 1] == UInt8(ascii: "*") && at < text.count && text[at] == UInt8(ascii: "/") {
                        at += 1
                        break
                    }
                }
            } else {
                return true
            }
        }
        return false
    }

    /// The line of `position` as CF's `lineNumberStrings` counts it: 1, plus one per `\n`, `\r`
    /// or `\r\n` before it.
    private func lineNumber(at position: Int) -> Int {
        var line = 1, i = 0
        while i < min(position, text.count) {
            if text[i] == 13 {
                line += 1
                if i + 1 < position && i + 1 < text.count && text[i + 1] == 10 { i += 1 }
            } else if text[i] == 10 {
                line += 1
            }
            i += 1
        }
        return line
    }

    /// U+2028 or U+2029 (`E2 80 A8`, `E2 80 A9`) at `i`.
    private func isParagraphOrLineSeparator(_ i: Int) -> Bool {
        text[i] == 0xE2 && i + 2 < text.count && text[i + 1] == 0x80 && (text[i + 2] == 0xA8 || text[i + 2] == 0xA9)
    }
}
