import Glibc

extension String {
    /// The UTF-8 bytes of the string, without a copy for native strings (the copy is for
    /// foreign, bridged ones).
    package func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        return try Array(utf8).withUnsafeBufferPointer(body)
    }
}

/// Whether two strings have the same UTF-8 bytes. Swift's `==` takes canonically equivalent
/// strings ("é" as one scalar and as `e` + combining accent) for equal; CF compares the code
/// units (docs/search-pattern.md, L-byte-names).
@inline(__always)
package func sameBytes(_ a: String, _ b: String) -> Bool {
    a.utf8.count == b.utf8.count
        && a.withUTF8Bytes { x in b.withUTF8Bytes { y in sameBytes(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) } }
}

/// Byte order of two byte strings — names, paths, LMDB keys (LMDB's default order): negative,
/// zero or positive; a string sorts before the longer ones it starts.
func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let length = min(a.count, b.count)
    if length > 0 {
        let order = memcmp(a.baseAddress!, b.baseAddress!, length)
        if order != 0 { return Int(order) }
    }
    return a.count - b.count
}

/// Whether two byte strings are the same bytes.
func sameBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    a.count == b.count && (a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0)
}

/// Where the bytes of `needle` first occur in `hay`; nil when nowhere (or `needle` is empty).
func firstOccurrence(of needle: UnsafeBufferPointer<UInt8>, in hay: UnsafeBufferPointer<UInt8>) -> Int? {
    guard let first = needle.first, needle.count <= hay.count else { return nil }
    for i in 0...(hay.count - needle.count) where hay[i] == first {
        if memcmp(hay.baseAddress! + i, needle.baseAddress!, needle.count) == 0 { return i }
    }
    return nil
}

extension Hasher {
    /// Feeds `s`'s UTF-8 bytes in one call (a byte at a time costs a hasher round each).
    @inline(__always)
    package mutating func combineBytes(of s: String) {
        s.withUTF8Bytes { combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// Byte-wise (UTF-8) order: the deterministic order bundleidx uses wherever Foundation's order
/// is readdir order (docs/search-pattern.md, L-readdir-order).
/// The UTF-8 buffers are compared directly (the generic comparison through `String.UTF8View`
/// indices dominated sorting in build profiles).
@inline(__always)
package func byteOrder(_ a: String, _ b: String) -> Bool {
    a.withUTF8Bytes { x in
        b.withUTF8Bytes { y in
            for i in 0..<min(x.count, y.count) where x[i] != y[i] { return x[i] < y[i] }
            return x.count < y.count
        }
    }
}
