/// A string compared and hashed by its UTF-8 bytes, as CF compares a `.strings` table's keys
/// (code unit by code unit) and the file system compares names: Swift's `String` equality takes
/// canonically equivalent strings ("é" in one scalar and in two) for one, and hashes them alike.
package struct BytewiseString: Hashable {
    package let text: String

    package init(text: String) { self.text = text }

    package static func == (a: BytewiseString, b: BytewiseString) -> Bool { sameBytes(a.text, b.text) }

    /// One buffer, not byte by byte (combining each byte was a tenth of the strings parse).
    package func hash(into hasher: inout Hasher) { hasher.combineBytes(of: text) }
}
