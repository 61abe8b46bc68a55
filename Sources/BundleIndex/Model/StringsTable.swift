/// A `.strings` or `.stringsdict` file of a bundle as the scanner read it: the entries
/// `Bundle.localizedString(forKey:value:table:)` can answer from it (docs/foundation-dropin.md,
/// "Localized strings"). The index keeps every entry, in hash order, so an answer is a key read and
/// no table is parsed at run time.
package struct StringsTable: Equatable, Sendable {
    /// The file's path relative to the bundle root (`Resources/fr.lproj/Localizable.strings`),
    /// spelled as a lookup of the table returns it.
    package let path: String
    /// The file's modification time (ns) when read: a restarted watcher compares it with the
    /// disk, as it compares a bundle's stamps (docs/watching.md, "Crashes and restarts").
    package let modificationTime: UInt64
    package let content: Content

    package enum Content: Equatable, Sendable {
        /// What CF's property-list parser made of the file: every key whose value is a string
        /// (for a `.stringsdict` entry, its `NSStringLocalizedFormatKey`), keys exactly as
        /// CF compares them (no Unicode normalisation). Empty when the file did not parse or is
        /// not a dictionary: Foundation then uses an empty table too.
        case entries([Entry])
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

    /// The largest table the scanner reads. Foundation has no limit; real tables are kilobytes.
    /// A larger file is recorded as not read, and the drop-in asks Foundation for its strings.
    package static let sizeLimit = 16 << 20

    /// Whether a directory entry named `name` is a strings table (`.strings`, `.stringsdict`).
    package static func isTable(_ name: String) -> Bool {
        name.hasSuffix(".strings") || name.hasSuffix(".stringsdict")
    }

    /// Whether the UTF-8 name ends in `.strings` or `.stringsdict`, byte for byte: true for every
    /// name `isTable` takes (and maybe for a few more), without building a `String`.
    package static func mayBeTable(_ name: UnsafeRawBufferPointer) -> Bool {
        func ends(_ suffix: StaticString) -> Bool {
            let tail = UnsafeRawBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount)
            return name.count >= tail.count && name[(name.count - tail.count)...].elementsEqual(tail)
        }
        return ends(".strings") || ends(".stringsdict")
    }

    package init(path: String, modificationTime: UInt64, content: Content) {
        self.path = path
        self.modificationTime = modificationTime
        self.content = content
    }
}
