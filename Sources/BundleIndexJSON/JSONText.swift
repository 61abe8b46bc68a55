import BundleIndexCore

/// A JSON value being written: the CLI's `--json` output and the batch protocol's answers.
/// Written by hand rather than through `JSONSerialization`, which costs more than a lookup per
/// answer and escapes every `/`.
public indirect enum JSONText: CustomStringConvertible {
    /// A string.
    case string(String)
    /// An integer.
    case int(Int64)
    /// A number; not finite ones are written as `null`.
    case double(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// An array.
    case array([JSONText])
    /// An object, members in this order.
    case object([(String, JSONText)])

    /// An object's text, members in the given order.
    public static func render(_ pairs: [(String, JSONText)]) -> String { JSONText.object(pairs).description }

    /// The value as compact JSON text.
    public var description: String {
        var out = JSONOutput()
        write(to: &out)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// Appends the value's text to `out`.
    func write(to out: inout JSONOutput) {
        switch self {
        case .string(let s): out.string(s)
        case .int(let i): out.body(String(i))
        case .double(let d): d.isFinite ? out.body(String(d)) : out.null()
        case .bool(let b): out.bool(b)
        case .null: out.null()
        case .array(let a):
            out.byte(UInt8(ascii: "["))
            for (i, element) in a.enumerated() {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.byte(UInt8(ascii: "]"))
        case .object(let o):
            out.byte(UInt8(ascii: "{"))
            for (i, member) in o.enumerated() {
                if i > 0 { out.byte(UInt8(ascii: ",")) }
                out.string(member.0)
                out.byte(UInt8(ascii: ":"))
                member.1.write(to: &out)
            }
            out.byte(UInt8(ascii: "}"))
        }
    }

    /// `s` as a JSON string literal: `"`, `\\` and control characters escaped, nothing else.
    public static func quote(_ s: String) -> String {
        var out = JSONOutput()
        out.string(s)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// An array of strings.
    public static func strings(_ list: [String]) -> JSONText { .array(list.map { .string($0) }) }

    /// How property-list values are spelled.
    public enum PropertyListStyle: Sendable {
        /// Booleans and reals as JSON `true`/`false` and numbers (`bundleidx info --json`).
        case plain
        /// Booleans as `{"$bool": true}` and reals as `{"$real": 1.5}`, so that a reader whose
        /// JSON numbers do not keep their kind can tell them apart (the batch protocol).
        case tagged
    }

    /// A property-list value in JSON. Both styles spell data as `{"$data": "<base64>"}` and dates
    /// as `{"$date": <seconds since 1970>}`; dictionaries come with their keys in byte order.
    public init(_ v: PropertyListValue, style: PropertyListStyle = .plain) {
        switch v {
        case .string(let s): self = .string(s)
        case .integer(let i): self = .int(i)
        case .real(let d): self = style == .tagged ? .object([("$real", .double(d))]) : .double(d)
        case .bool(let b): self = style == .tagged ? .object([("$bool", .bool(b))]) : .bool(b)
        case .date(let d): self = .object([("$date", .double(d))])
        case .data(let d): self = .object([("$data", .string(Base64.encode(d)))])
        case .array(let a): self = .array(a.map { JSONText($0, style: style) })
        case .dictionary(let d):
            self = .object(d.keys.sorted(by: Self.byteOrder).map { ($0, JSONText(d[$0]!, style: style)) })
        }
    }

    /// Byte (UTF-8) order, the order of keys in every object this writes.
    public static func byteOrder(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }
}
