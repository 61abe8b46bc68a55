// The request decoder of `bundleidx query --batch` (docs/batch.md, "The request decoder").
// Standard library only: tools/batch-codec-bench compiles this file into its timing harness.

/// One request line of the batch protocol, decoded: a JSON object whose values are strings,
/// numbers, booleans, `null`, or flat arrays of those — nothing nested deeper, which is all the
/// protocol uses. A general JSON parser costs ten times a lookup per line; this one is written
/// for exactly these objects (docs/batch.md, "Why a narrow codec").
///
/// ```swift
/// var request = BatchRequest()
/// try request.decode(Array(#"{"bundle":"com.example.phone","op":"path","name":"icon"}"#.utf8))
/// request.value(for: "name")   // .string("icon")
/// ```
///
/// What it accepts is RFC 8259 JSON, restricted: the text must be valid UTF-8 (a leading byte
/// order mark is skipped), every string escape is decoded (`\uXXXX` surrogate pairs into one
/// scalar; a lone surrogate is an error), raw control characters inside strings, nested objects or
/// arrays, numbers that do not fit a `Double`, anything after the closing `}` and lines longer
/// than `maximumLineLength` bytes are errors. A key given twice keeps its last value, as
/// `JSONSerialization` does; keys are compared byte for byte.
public struct BatchRequest: Sendable {
    /// The longest line decoded, in bytes without its newline (1 MiB); a longer one is an error
    /// (and the batch reader never holds more than about this much of a line in memory).
    public static let maximumLineLength = 1 << 20

    /// A member's value.
    public enum Value: Equatable, Sendable {
        /// A string, escapes decoded (it may contain U+0000 when the line had `\u0000`).
        case string(String)
        /// A number (JSON does not tell integers from reals; neither does the protocol).
        case number(Double)
        /// `true` or `false`.
        case bool(Bool)
        /// `null`.
        case null
        /// A flat array: its elements are strings, numbers, booleans or `null`.
        case array([Value])
    }

    /// A member of the object.
    public struct Member: Equatable, Sendable {
        /// The key, escapes decoded.
        public var key: String
        /// The value.
        public var value: Value
        /// The protocol's key that `key` is, byte for byte, if it is one.
        public var protocolKey: ProtocolKey?
    }

    /// The keys of the protocol (docs/batch.md, "Requests"), which decoding recognises: each
    /// comes back as the same string, and its member says which it is.
    public enum ProtocolKey: Int, CaseIterable, Sendable {
        case bundle, op, name, type, dir, loc, key, prefs, from, table, value

        /// The key as written.
        public var name: String { Self.names[rawValue] }

        private static let names = allCases.map { String(describing: $0) }

        /// The key `bytes` spell, if they spell one.
        static func spelled(by bytes: UnsafeBufferPointer<UInt8>) -> ProtocolKey? {
            func spells(_ key: StaticString) -> Bool {
                memoryEqual(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount), bytes)
            }
            switch bytes.count {
            case 2: return spells("op") ? .op : nil
            case 3: return spells("dir") ? .dir : spells("loc") ? .loc : spells("key") ? .key : nil
            case 4: return spells("name") ? .name : spells("type") ? .type : spells("from") ? .from : nil
            case 5: return spells("prefs") ? .prefs : spells("table") ? .table : spells("value") ? .value : nil
            case 6: return spells("bundle") ? .bundle : nil
            default: return nil
            }
        }
    }

    /// Why a line is not a request: what was wrong and the byte offset (from 0) where it was seen.
    public struct Malformed: Error, Equatable, Sendable, CustomStringConvertible {
        /// What was expected or found.
        public let reason: String
        /// The byte offset in the line, from 0.
        public let offset: Int

        public var description: String { "malformed request at byte \(offset): \(reason)" }
    }

    /// The members in the order of the line; a key given twice is here twice (`value(for:)`
    /// answers the last one).
    public private(set) var members: [Member] = []

    /// Whether a string of the line (key or value) holds U+0000, which only `\u0000` can write:
    /// a caller that refuses U+0000 looks for it only then.
    public private(set) var containsNUL = false

    /// Bytes of a string with escapes, decoded; kept between lines so that decoding allocates
    /// only the strings it returns.
    private var scratch: [UInt8] = []

    /// An empty request, to `decode` lines into.
    public init() {}

    /// The request on `line` (its bytes without the newline).
    public init(decoding line: [UInt8]) throws(Malformed) {
        try decode(line)
    }

    /// The value of the last member named `key` (compared byte for byte), or nil.
    public func value(for key: String) -> Value? {
        members.last { $0.key.utf8.elementsEqual(key.utf8) }?.value
    }

    /// Decodes `line` (its bytes without the newline) into this request, replacing its members
    /// and reusing its storage.
    public mutating func decode(_ line: [UInt8]) throws(Malformed) {
        try line.withUnsafeBufferPointer { (bytes) throws(Malformed) in try decode(bytes) }
    }

    /// `decode(_:)` over contiguous bytes.
    public mutating func decode(_ line: UnsafeBufferPointer<UInt8>) throws(Malformed) {
        members.removeAll(keepingCapacity: true)
        containsNUL = false
        guard line.count <= Self.maximumLineLength else {
            throw Malformed(reason: "the line is longer than \(Self.maximumLineLength) bytes", offset: Self.maximumLineLength)
        }
        // The scratch buffer moves into the parser and back, never shared (no copy on write).
        var parser = Parser(bytes: line)
        swap(&parser.scratch, &scratch)
        defer {
            swap(&parser.scratch, &scratch)
            containsNUL = parser.containsNUL
        }
        try parser.object(into: &members)
    }
}

private func memoryEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    for k in 0..<a.count where a[k] != b[k] { return false }
    return true
}
