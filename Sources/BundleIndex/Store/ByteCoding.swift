/// The index's value encoding: little-endian fixed integers, LEB128 varints and
/// length-prefixed UTF-8 strings. Decoding never traps: malformed bytes throw `IndexFormatError`.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    var count: Int { bytes.count }

    /// Empties the buffer and keeps its storage, so one writer can encode many values.
    mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try bytes.withUnsafeBytes(body)
    }

    mutating func u8(_ v: UInt8) { bytes.append(v) }

    mutating func u32(_ v: UInt32) {
        for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
    }

    mutating func u64(_ v: UInt64) {
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }

    mutating func varint(_ v: UInt64) {
        var v = v
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7f) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func varint(_ v: Int) { varint(UInt64(v)) }

    mutating func string(_ s: String) {
        varint(s.utf8.count)
        bytes.append(contentsOf: s.utf8)
    }

    /// Length-prefixed bytes (a string written from part of another's UTF-8).
    mutating func string<C: Collection<UInt8>>(utf8 b: C) {
        varint(b.count)
        bytes.append(contentsOf: b)
    }

    /// Bytes without a length (a record's last field, which runs to the end of the value).
    mutating func bytesAppending<C: Collection<UInt8>>(_ b: C) {
        bytes.append(contentsOf: b)
    }

    mutating func raw(_ b: [UInt8]) {
        varint(b.count)
        bytes.append(contentsOf: b)
    }

    mutating func strings(_ list: [String]) {
        varint(list.count)
        for s in list { string(s) }
    }
}

/// A value in the index could not be decoded: the file is damaged or not ours.
struct IndexFormatError: Error, CustomStringConvertible {
    let what: String
    var description: String { "malformed index record: \(what)" }
}

/// Reads a record's bytes in order. Its small readers are inlined: a listing search calls
/// them for every entry it steps over, and as calls they were a fifth of a warm lookup (`perf`).
struct ByteReader {
    private let buffer: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    var isAtEnd: Bool { offset >= buffer.count }

    @inline(__always)
    mutating func u8() throws -> UInt8 {
        guard offset < buffer.count else { throw IndexFormatError(what: "truncated byte") }
        defer { offset += 1 }
        return buffer[offset]
    }

    @inline(__always)
    mutating func u32() throws -> UInt32 {
        guard offset + 4 <= buffer.count else { throw IndexFormatError(what: "truncated u32") }
        defer { offset += 4 }
        return UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always)
    mutating func u64() throws -> UInt64 {
        guard offset + 8 <= buffer.count else { throw IndexFormatError(what: "truncated u64") }
        defer { offset += 8 }
        return UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try u8()
            guard shift < 64 else { throw IndexFormatError(what: "varint too long") }
            result |= UInt64(b & 0x7f) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// Moves to `position` (bytes from the start); throws when it lies outside the buffer.
    @inline(__always)
    mutating func seek(to position: Int) throws {
        guard position >= 0 && position <= buffer.count else { throw IndexFormatError(what: "position outside the record") }
        offset = position
    }

    var length: Int { buffer.count }

    /// The bytes at `range` (positions from the start), without copying.
    func bytes(_ range: Range<Int>) throws -> UnsafeRawBufferPointer {
        guard range.lowerBound >= 0 && range.upperBound <= buffer.count else { throw IndexFormatError(what: "range outside the record") }
        return UnsafeRawBufferPointer(rebasing: buffer[range])
    }

    @inline(__always)
    mutating func count() throws -> Int {
        let n = try varint()
        guard n <= UInt64(buffer.count - offset) * 8 + 64 else { throw IndexFormatError(what: "implausible count") }
        return Int(n)
    }

    /// The next length-prefixed byte run, without copying.
    @inline(__always)
    mutating func slice() throws -> UnsafeRawBufferPointer {
        try take(try varint())
    }

    /// The next `n` bytes, without copying.
    @inline(__always)
    mutating func take(_ n: UInt64) throws -> UnsafeRawBufferPointer {
        guard n <= UInt64(buffer.count - offset) else { throw IndexFormatError(what: "truncated string") }
        let s = UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + Int(n))])
        offset += Int(n)
        return s
    }

    mutating func string() throws -> String {
        String(decoding: try slice(), as: UTF8.self)
    }

    mutating func raw() throws -> [UInt8] { Array(try slice()) }

    mutating func strings() throws -> [String] {
        let n = try count()
        var out: [String] = []
        out.reserveCapacity(n)
        for _ in 0..<n { out.append(try string()) }
        return out
    }
}
