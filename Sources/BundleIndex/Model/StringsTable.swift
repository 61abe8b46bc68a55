/// A `.strings` or `.stringsdict` file of a bundle as the scanner read it: the entries
/// `Bundle.localizedString(forKey:value:table:)` can answer from it (docs/foundation-dropin.md,
/// "Localized strings"). The index keeps every entry, in hash order, so an answer is a key read and
/// no table is parsed at run time.
package struct StringsTable: Equatable, Sendable {
    /// The file's path relative to the bundle root (`Resources/fr.lproj/Localizable.strings`),
    /// spelled as a lookup of the table returns it.
    package let path: String
    /// The file's change time (ns) when read: a restarted watcher compares it with the
    /// disk, as it compares a bundle's stamps (docs/watching.md, "Crashes and restarts").
    package let changeTime: UInt64
    package let content: Content

    package enum Content: Equatable, Sendable {
        /// What CF's property-list parser made of the file: every key whose value is a string
        /// (for a `.stringsdict` entry, its `NSStringLocalizedFormatKey`), keys exactly as
        /// CF compares them (no Unicode normalisation). Empty when the file did not parse or is
        /// not a dictionary: Foundation then uses an empty table too.
        case entries(Entries)
        /// The file was not read (larger than the scanner reads): an answer from this table
        /// has to come from Foundation.
        case notRead
    }

    package struct Entry: Equatable, Sendable {
        package let key: String
        package let value: String

        package init(key: String, value: String) {
            self.key = key
            self.value = value
        }
    }

    /// A table's entries, each key once, their UTF-8 in one buffer: two allocations per table,
    /// where a `String` for every key and value longer than 15 bytes was one of its own, made,
    /// hashed, copied into the records and freed again (docs/performance.md, "Strings tables kept
    /// in one buffer"). Keys and values compare as bytes, as CF compares them.
    package struct Entries: Equatable, Sendable {
        /// Where entry `i`'s key and value lie in `text` (a value written as `key;` is its key's bytes).
        package struct Span: Sendable {
            let keyStart: UInt32, keyEnd: UInt32, valueStart: UInt32, valueEnd: UInt32

            package init(key: Range<Int>, value: Range<Int>) {
                (keyStart, keyEnd) = (UInt32(key.lowerBound), UInt32(key.upperBound))
                (valueStart, valueEnd) = (UInt32(value.lowerBound), UInt32(value.upperBound))
            }

            package var key: Range<Int> { Int(keyStart)..<Int(keyEnd) }
            package var value: Range<Int> { Int(valueStart)..<Int(valueEnd) }
        }

        private let text: [UInt8]
        private let spans: [Span]

        /// Entries whose bytes `spans` name in `text` (at most `sizeLimit` bytes: offsets are 32 bits).
        package init(text: [UInt8], spans: [Span]) {
            self.text = text
            self.spans = spans
        }

        package init(_ entries: [Entry] = []) {
            var text: [UInt8] = [], spans: [Span] = []
            spans.reserveCapacity(entries.count)
            for e in entries {
                let key = text.count
                text.append(contentsOf: e.key.utf8)
                let value = text.count
                text.append(contentsOf: e.value.utf8)
                spans.append(Span(key: key..<value, value: value..<text.count))
            }
            self.init(text: text, spans: spans)
        }

        package var count: Int { spans.count }

        /// Entry `i`'s key, its UTF-8 valid only during the call.
        package func withKey<T>(_ i: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
            try text.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[spans[i].key])) }
        }

        /// Entry `i`'s value, its UTF-8 valid only during the call.
        package func withValue<T>(_ i: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
            try text.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[spans[i].value])) }
        }

        package subscript(i: Int) -> Entry {
            Entry(key: String(decoding: text[spans[i].key], as: UTF8.self),
                  value: String(decoding: text[spans[i].value], as: UTF8.self))
        }

        /// Every entry as strings, in order.
        package var list: [Entry] { spans.indices.map { self[$0] } }

        package static func == (a: Entries, b: Entries) -> Bool {
            a.count == b.count && a.spans.indices.allSatisfy { i in
                a.text[a.spans[i].key].elementsEqual(b.text[b.spans[i].key])
                    && a.text[a.spans[i].value].elementsEqual(b.text[b.spans[i].value])
            }
        }
    }

    /// The largest table the scanner reads. Foundation has no limit; real tables are kilobytes.
    /// A larger file is recorded as not read, and the drop-in asks Foundation for its strings.
    package static let sizeLimit = 16 << 20

    /// Whether a directory entry named `name` is a strings table (`.strings`, `.stringsdict`).
    package static func isTable(_ name: String) -> Bool {
        name.hasSuffix(".strings") || name.hasSuffix(".stringsdict")
    }

    package init(path: String, changeTime: UInt64, content: Content) {
        self.path = path
        self.changeTime = changeTime
        self.content = content
    }
}
