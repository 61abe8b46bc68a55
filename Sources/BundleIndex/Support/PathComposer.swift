/// A path or lookup name assembled byte by byte in a stack buffer, so the common query can
/// hash its keys and spell its answer without building a single `String` (the hit path of
/// `IndexedBundle` allocates nothing before the caller asks for a `String`).
///
/// The buffer comes from `withUnsafeTemporaryAllocation` (on the stack for the sizes a query
/// needs) and lives only inside `compose`; the type is non-copyable so nothing can keep it.
package struct PathComposer: ~Copyable {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    /// Bytes written so far.
    package private(set) var count = 0

    private init(buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    /// Runs `body` with an empty composer of `capacity` bytes. Writing past the capacity is a
    /// programming error (callers size it from the parts they append) and traps.
    package static func compose<R>(capacity: Int, _ body: (inout PathComposer) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(capacity, 1)) { buffer in
            var composer = PathComposer(buffer: buffer)
            return try body(&composer)
        }
    }

    package mutating func append(_ byte: UInt8) {
        precondition(count < buffer.count, "PathComposer capacity")
        buffer[count] = byte
        count += 1
    }

    package mutating func append(_ text: String) {
        text.withUTF8Bytes { copy($0) }
    }

    /// Appends a copy of bytes written earlier.
    mutating func append(copyOf range: Range<Int>) {
        precondition(range.upperBound <= count)
        copy(UnsafeBufferPointer(rebasing: buffer[range]))
    }

    private mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(count + bytes.count <= buffer.count, "PathComposer capacity")
        guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
        (target + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends bytes another composer holds.
    mutating func append(_ other: borrowing PathComposer, _ range: Range<Int>) {
        precondition(range.upperBound <= other.count)
        copy(UnsafeBufferPointer(rebasing: other.buffer[range]))
    }

    /// Drops what was written after `length` bytes.
    mutating func truncate(to length: Int) {
        precondition(length <= count)
        count = length
    }

    /// The bytes in `range`, valid while the composer is.
    package func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        precondition(range.upperBound <= count)
        return UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[range])
    }

    /// Everything written so far as a C string: appends the terminating zero (room for it is
    /// the caller's to size) and passes the start of the buffer.
    package mutating func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        append(0)
        return try UnsafeRawPointer(buffer.baseAddress!).withMemoryRebound(to: CChar.self, capacity: count) { try body($0) }
    }

    /// The bytes in `range`, as UTF-8 code units.
    func withUTF8<R>(in range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        precondition(range.upperBound <= count)
        return try body(UnsafeBufferPointer(rebasing: buffer[range]))
    }
}
