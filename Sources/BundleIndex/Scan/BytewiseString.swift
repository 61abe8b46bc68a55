/// A string compared and hashed by its UTF-8 bytes, as CF compares a `.strings` table's keys
/// (code unit by code unit) and the file system compares names: Swift's `String` equality takes
/// canonically equivalent strings ("é" in one scalar and in two) for one, and hashes them alike.
struct BytewiseString: Hashable {
    let text: String

    static func == (a: BytewiseString, b: BytewiseString) -> Bool {
        // Over the two buffers: `utf8.elementsEqual` steps index by index (a build's lookups of
        // real paths compare whole paths on every hit).
        guard a.text.utf8.count == b.text.utf8.count else { return false }
        var x = a.text, y = b.text
        return x.withUTF8 { p in y.withUTF8 { q in p.elementsEqual(q) } }
    }

    func hash(into hasher: inout Hasher) {
        // One buffer, not byte by byte (combining each byte was a tenth of the strings parse);
        // the pointer lives only inside `withUTF8`.
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
