// JSON written straight into bytes (docs/batch.md, "Answers"). Standard library only:
// tools/batch-codec-bench compiles this file into its timing harness.

/// JSON text appended to a byte buffer that is kept from line to line: the batch protocol's
/// answers, and `JSONText`'s text. Strings are escaped as `JSONText.quote` describes: `"`, `\`
/// and control characters, nothing else (no `\/`).
struct JSONOutput {
    /// The text written so far (UTF-8).
    var bytes: [UInt8] = []

    init() {}

    /// Empties the buffer, keeping its storage.
    mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    /// ASCII text written as it is (punctuation, literals, keys that need no escape).
    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func null() { raw("null") }

    mutating func bool(_ b: Bool) { b ? raw("true") : raw("false") }

    /// `s` as a JSON string.
    mutating func string(_ s: String) {
        byte(Self.quote)
        body(s)
        byte(Self.quote)
    }

    /// `s`'s characters escaped, without the quotes around them.
    mutating func body(_ s: String) {
        var s = s
        s.withUTF8 { body($0) }
    }

    /// A path given as bytes, as a JSON string. Bytes that are not UTF-8 (a file name can hold
    /// any byte) are replaced by U+FFFD as `String(decoding:as:)` replaces them, so the text is
    /// the one a `String` of the same bytes would give.
    mutating func string(utf8 text: UnsafeBufferPointer<UInt8>) {
        if text.contains(where: { $0 >= 0x80 }) && String(validating: text, as: UTF8.self) == nil {
            string(String(decoding: text, as: UTF8.self))
            return
        }
        byte(Self.quote)
        body(text)
        byte(Self.quote)
    }

    /// UTF-8 text escaped, without quotes: runs that need no escape are copied whole.
    mutating func body(_ text: UnsafeBufferPointer<UInt8>) {
        guard let base = text.baseAddress else { return }
        var run = 0, i = 0
        let n = text.count
        while i < n {
            // Eight plain bytes at a time, then one by one.
            while n - i >= 8 && !PlainBytes.special(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { i += 8 }
            guard i < n else { break }
            let b = base[i]
            // One test for the common byte: above `\`, or between `"` and `\`, or a space or `!`.
            if b > Self.backslash || (b > Self.quote && b < Self.backslash) || b == 0x20 || b == 0x21 {
                i += 1
                continue
            }
            if run < i { bytes.append(contentsOf: UnsafeBufferPointer(start: base + run, count: i - run)) }
            bytes.append(Self.backslash)
            switch b {
            case Self.quote, Self.backslash: bytes.append(b)
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                raw("u00")
                bytes.append(Self.hexDigits[Int(b >> 4)])
                bytes.append(Self.hexDigits[Int(b & 0xF)])
            }
            i += 1
            run = i
        }
        if run < n { bytes.append(contentsOf: UnsafeBufferPointer(start: base + run, count: n - run)) }
    }

    /// An array of strings.
    mutating func strings(_ list: [String]) {
        byte(UInt8(ascii: "["))
        for (i, s) in list.enumerated() {
            if i > 0 { byte(UInt8(ascii: ",")) }
            string(s)
        }
        byte(UInt8(ascii: "]"))
    }

    static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
