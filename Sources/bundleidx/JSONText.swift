import BundleIndex

/// Minimal JSON writer for `--json` output (keeps the CLI free of Foundation's start-up cost).
indirect enum JSONText: CustomStringConvertible {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSONText])
    case object([(String, JSONText)])

    static func render(_ pairs: [(String, JSONText)]) -> String { JSONText.object(pairs).description }

    var description: String {
        switch self {
        case .string(let s): return Self.quote(s)
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : "null"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array(let a): return "[" + a.map(\.description).joined(separator: ",") + "]"
        case .object(let o): return "{" + o.map { Self.quote($0.0) + ":" + $0.1.description }.joined(separator: ",") + "}"
        }
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }

    static func strings(_ list: [String]) -> JSONText { .array(list.map { .string($0) }) }

    /// Property-list values: booleans, numbers, strings, arrays and dictionaries map directly;
    /// data and dates as {"$data": base64-less hex} / {"$date": seconds since 1970}.
    init(_ v: PropertyListValue) {
        switch v {
        case .string(let s): self = .string(s)
        case .integer(let i): self = .int(i)
        case .real(let d): self = .double(d)
        case .bool(let b): self = .bool(b)
        case .date(let d): self = .object([("$date", .double(d))])
        case .data(let d): self = .object([("$hex", .string(d.map { b in
            let h = String(b, radix: 16); return h.count == 1 ? "0" + h : h }.joined()))])
        case .array(let a): self = .array(a.map(JSONText.init))
        case .dictionary(let d):
            self = .object(d.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { ($0, JSONText(d[$0]!)) })
        }
    }
}
