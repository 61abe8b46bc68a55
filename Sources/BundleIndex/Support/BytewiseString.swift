import CXXHash
/// A string compared and hashed by its UTF-8 bytes, as CF compares a `.strings` table's keys
/// (code unit by code unit) and the file system compares names: Swift's `String` equality takes
/// canonically equivalent strings ("é" in one scalar and in two) for one, and hashes them alike.
package struct BytewiseString: Hashable {
    package let text: String

    package init(text: String) { self.text = text }

    package static func == (a: BytewiseString, b: BytewiseString) -> Bool { sameBytes(a.text, b.text) }

    /// The bytes' XXH3, seeded per process, is what the `Hasher` gets: one word, where
    /// `Hasher.combine(bytes:)` ran SipHash over every byte of a path, 2–3 % of a build's
    /// CPU (docs/performance.md, "Paths hashed with XXH3"). Combining each byte was a tenth of
    /// the strings parse before.
    package func hash(into hasher: inout Hasher) {
        text.withUTF8Bytes { hasher.combine(XXH3_64bits_withSeed($0.baseAddress, $0.count, Self.seed)) }
    }

    /// Per process, so names chosen to collide in one process's tables do not collide in the next.
    private static let seed = UInt64.random(in: 0...UInt64.max)
}
