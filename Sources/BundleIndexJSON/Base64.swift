/// Standard base64 (RFC 4648, section 4: `A–Z a–z 0–9 + /`, `=` padding, no line breaks) — the
/// text Foundation's `Data.base64EncodedString()` gives, which `{"$data": …}` values used.
///
/// Written here so that the JSON faces need no Foundation: the fresh `bundleidx query --json`
/// process links none (docs/performance.md, "Fresh process"). Base64Tests compares it with
/// Foundation's encoder on random inputs of every length up to a few hundred bytes.
enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= bytes.count {
            let group = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            for shift in [18, 12, 6, 0] as [UInt32] { out.append(alphabet[Int(group >> shift & 0x3F)]) }
            i += 3
        }
        let rest = bytes.count - i   // 0, 1 or 2 bytes left: 2 or 3 characters, then padding
        if rest > 0 {
            let group = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out.append(alphabet[Int(group >> 18 & 0x3F)])
            out.append(alphabet[Int(group >> 12 & 0x3F)])
            out.append(rest == 2 ? alphabet[Int(group >> 6 & 0x3F)] : UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }
}
