/// The text of a file as CF's old-style property-list parser reads it (CF's `encodingForXMLData`,
/// then the parser's CFString), for `OpenStepStringsParser`: UTF-8 with or without a byte-order
/// mark, or UTF-16 with one, as UTF-8. It decodes only where it is certain of CF's reading and
/// leaves the rest to CF: binary and XML property lists, UTF-32, UTF-16 without a byte-order
/// mark, invalid UTF-8, lone surrogates.
enum OpenStepText {
    /// `bytes` as UTF-8 when CF would hand them, so decoded, to its old-style parser; nil
    /// otherwise.
    static func utf8(_ bytes: [UInt8]) -> [UInt8]? {
        guard let text = utf8Text(bytes), !startsLikeXML(text) else { return nil }
        return text
    }

    /// The text as UTF-8, as CF decodes the file; nil for any form CF reads otherwise or that
    /// this reader does not take.
    private static func utf8Text(_ bytes: [UInt8]) -> [UInt8]? {
        // A binary property list, and UTF-32 with a byte-order mark.
        if bytes.starts(with: Array("bplist".utf8)) { return nil }
        if bytes.count > 4 && (bytes.starts(with: [0, 0, 0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE, 0, 0])) { return nil }
        // CF's UTF-8 decoding drops a byte-order mark.
        if bytes.count >= 3 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return validUTF8(bytes, from: 3) }
        if bytes.count > 2 {
            if bytes[0] == 0xFF && bytes[1] == 0xFE { return utf16(bytes, bigEndian: false) }
            if bytes[0] == 0xFE && bytes[1] == 0xFF { return utf16(bytes, bigEndian: true) }
            // UTF-16 without a byte-order mark, CF's guess when one of the first two bytes is 0.
            if bytes[0] == 0 || bytes[1] == 0 { return nil }
        }
        return validUTF8(bytes, from: 0)
    }

    /// `bytes` from `start` on, when they are valid UTF-8.
    private static func validUTF8(_ bytes: [UInt8], from start: Int) -> [UInt8]? {
        guard (try? UTF8Span(validating: bytes.span.extracting(start..<bytes.count))) != nil else { return nil }
        return start == 0 ? bytes : Array(bytes[start...])
    }

    /// UTF-16 after its byte-order mark, as UTF-8; nil for an odd length, a lone surrogate or a
    /// second byte-order mark (which this reader leaves to CF).
    private static func utf16(_ bytes: [UInt8], bigEndian: Bool) -> [UInt8]? {
        guard bytes.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 2
        var high: UInt32? = nil
        while i < bytes.count {
            let unit = bigEndian ? UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1]) : UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i])
            i += 2
            if unit < 0x80 && high == nil {
                out.append(UInt8(unit))
            } else if let h = high {
                guard (0xDC00...0xDFFF).contains(unit) else { return nil }
                appendUTF8(0x10000 + ((h - 0xD800) << 10) + (unit - 0xDC00), to: &out)
                high = nil
            } else if (0xD800...0xDBFF).contains(unit) {
                high = unit
            } else if (0xDC00...0xDFFF).contains(unit) || (unit == 0xFEFF && i == 4) {
                return nil
            } else {
                appendUTF8(unit, to: &out)
            }
        }
        return high == nil ? out : nil
    }

    @inline(__always)
    static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            out.append(UInt8(scalar))
        case ..<0x800:
            out.append(UInt8(0xC0 | scalar >> 6)); out.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            out.append(UInt8(0xE0 | scalar >> 12)); out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18)); out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F)); out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// CF tries the XML parser first; it can only succeed when the first printable ASCII
    /// character is `<` (its white space is ASCII controls, bytes 0x7F–0xA0 and some spaces
    /// above U+2000, never a printable ASCII character). Such a text is left to CF.
    private static func startsLikeXML(_ text: [UInt8]) -> Bool {
        text.first { $0 > 0x20 && $0 < 0x7F } == UInt8(ascii: "<")
    }
}
