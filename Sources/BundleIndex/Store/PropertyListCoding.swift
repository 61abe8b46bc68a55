/// The index's binary form of a property-list value (docs/index-format.md): a tag byte, then
/// the value; dictionaries with their keys in byte order, so equal values encode to equal bytes.
/// A dictionary key is a varint k: odd, the well-known key number (k − 1) / 2
/// (`InfoPlistKeys`); even, k / 2 bytes of UTF-8 text follow.
extension PropertyListValue {
    private enum Tag: UInt8 { case string = 1, integer, real, bool, date, data, array, dictionary }

    func encode(into w: inout ByteWriter) {
        switch self {
        case .string(let s): w.u8(Tag.string.rawValue); w.string(s)
        case .integer(let i): w.u8(Tag.integer.rawValue); w.u64(UInt64(bitPattern: i))
        case .real(let d): w.u8(Tag.real.rawValue); w.u64(d.bitPattern)
        case .bool(let b): w.u8(Tag.bool.rawValue); w.u8(b ? 1 : 0)
        case .date(let d): w.u8(Tag.date.rawValue); w.u64(d.bitPattern)
        case .data(let d): w.u8(Tag.data.rawValue); w.raw(d)
        case .array(let a):
            w.u8(Tag.array.rawValue); w.varint(a.count)
            for v in a { v.encode(into: &w) }
        case .dictionary(let d):
            w.u8(Tag.dictionary.rawValue); w.varint(d.count)
            for k in d.keys.sorted(by: byteOrder) {
                if let number = InfoPlistKeys.numbers[k] {
                    w.varint(2 * number + 1)
                } else {
                    w.varint(2 * k.utf8.count)
                    w.bytesAppending(k.utf8)
                }
                d[k]!.encode(into: &w)
            }
        }
    }

    static func decode(from r: inout ByteReader, depth: Int = 0) throws -> PropertyListValue {
        guard depth < 256 else { throw IndexFormatError(what: "property list nested too deeply") }
        guard let tag = Tag(rawValue: try r.u8()) else { throw IndexFormatError(what: "property list tag") }
        switch tag {
        case .string: return .string(try r.string())
        case .integer: return .integer(Int64(bitPattern: try r.u64()))
        case .real: return .real(Double(bitPattern: try r.u64()))
        case .bool: return .bool(try r.u8() != 0)
        case .date: return .date(Double(bitPattern: try r.u64()))
        case .data: return .data(try r.raw())
        case .array:
            let n = try r.count()
            var a: [PropertyListValue] = []
            for _ in 0..<n { a.append(try decode(from: &r, depth: depth + 1)) }
            return .array(a)
        case .dictionary:
            let n = try r.count()
            var d: [String: PropertyListValue] = [:]
            d.reserveCapacity(n)
            for _ in 0..<n {
                let code = try r.varint()
                let k: String
                if code & 1 == 1 {
                    let number = code >> 1
                    guard number < InfoPlistKeys.all.count else { throw IndexFormatError(what: "property list key number") }
                    k = InfoPlistKeys.all[Int(number)]
                } else {
                    k = String(decoding: try r.take(code >> 1), as: UTF8.self)
                }
                d[k] = try decode(from: &r, depth: depth + 1)
            }
            return .dictionary(d)
        }
    }
}
