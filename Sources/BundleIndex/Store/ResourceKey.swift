import CXXHash

/// Keys of the `resources` database (docs/index-format.md):
///
///     directory record   [bundle id: u32 BE][directory hash: u64 BE]                     12 bytes
///     item record        [bundle id: u32 BE][directory hash: u64 BE][item hash: u64 BE]  20 bytes
///
/// The bundle id is assigned when the bundle is written, so all records of one bundle form one key
/// range, and all records of one directory form a sub-range, the directory record first (LMDB
/// puts a key before the longer keys it begins): a bundle or a directory is removed or
/// re-indexed with a cursor over its prefix, without touching anything else. Format 14 dropped
/// the directory record's item hash, always 0 (8 bytes of every key of nearly every record).
/// Hashes are XXH3-64; a directory record holds its full path and every other value a check of
/// its directory (and the names in full), so a reader detects a collision.
struct ResourceKey: Hashable {
    /// The length of a directory record's key.
    static let directorySize = 12
    /// Bundle ids are below 2^32 (`maximumBundleID`); the key keeps the low 32 bits.
    let bundle: UInt64
    let directory: UInt64
    let item: UInt64

    /// Item kinds, hashed together with the name (format 12 also had 'N' name and 'T' type
    /// records; format 13 keeps those in the directory record).
    enum Kind: UInt8 {
        case strings = 0x53 // 'S': parsed InfoPlist.strings content of one file
    }

    /// The directory record itself (its full listing).
    static func directory(bundle: UInt64, directory: UInt64) -> ResourceKey {
        ResourceKey(bundle: bundle, directory: directory, item: 0)
    }

    static func item(bundle: UInt64, directory: UInt64, kind: Kind, _ name: String) -> ResourceKey {
        ResourceKey(bundle: bundle, directory: directory, item: itemHash(kind: kind, name))
    }

    /// The item part of an item's key.
    static func itemHash(kind: Kind, _ name: String) -> UInt64 {
        nonZero(Hashing.item(kind: kind.rawValue, name))
    }

    /// 0 names the directory record, so an item hash of 0 is stored as 1.
    private static func nonZero(_ h: UInt64) -> UInt64 { h == 0 ? 1 : h }

    /// The largest bundle id a key can hold.
    static let maximumBundleID = UInt64(UInt32.max)

    var bytes: [UInt8] { withBytes { Array($0) } }

    /// Calls `body` with the key's bytes on the stack (no allocation on the query path): up to
    /// five big-endian u32 words, a tuple without padding, of which a directory record's key
    /// is the first three.
    @inline(__always)
    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        var words = (UInt32(truncatingIfNeeded: bundle).bigEndian,
                     UInt32(truncatingIfNeeded: directory >> 32).bigEndian, UInt32(truncatingIfNeeded: directory).bigEndian,
                     UInt32(truncatingIfNeeded: item >> 32).bigEndian, UInt32(truncatingIfNeeded: item).bigEndian)
        let count = item == 0 ? Self.directorySize : MemoryLayout.size(ofValue: words)
        return try withUnsafeBytes(of: &words) { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
    }

    /// True for the key of a directory record (see `directory(bundle:directory:)`).
    static func isDirectoryRecord(_ key: UnsafeRawBufferPointer) -> Bool {
        key.count == directorySize
    }

    /// The key prefix of every record of a bundle.
    static func bundlePrefix(_ bundle: UInt64) -> [UInt8] {
        Array(ResourceKey(bundle: bundle, directory: 0, item: 0).bytes.prefix(4))
    }
}

/// XXH3 over the parts of a key. The only code that calls xxHash.
package enum Hashing {
    static func directory(_ path: String) -> UInt64 { xxh3(path, seed: 0) }
    static func directory(_ path: UnsafeRawBufferPointer) -> UInt64 { xxh3(path, seed: 0) }

    /// A second, independent hash of the directory path, stored in values (32 bits are enough
    /// to turn a 2^-64 key collision into a detected one).
    static func directoryCheck(_ path: String) -> UInt32 {
        UInt32(truncatingIfNeeded: xxh3(path, seed: checkSeed))
    }

    static func item(kind: UInt8, _ name: String) -> UInt64 {
        xxh3(name, seed: UInt64(kind))
    }

    /// The table part of a `strings` key: the table file's path relative to the bundle root.
    static func table(_ path: String) -> UInt64 { xxh3(path, seed: tableSeed) }

    /// A check of the table file's path, independent of `table(_:)`, from which an entry's
    /// check is seeded.
    static func tableCheck(_ path: String) -> UInt32 {
        UInt32(truncatingIfNeeded: xxh3(path, seed: checkSeed ^ tableSeed))
    }

    /// The entry part of a `strings` key: the key's UTF-8, seeded with the table's hash.
    static func entry(_ key: UnsafeRawBufferPointer, table: UInt64) -> UInt64 { xxh3(key, seed: table) }

    /// The check a strings entry stores: the key hashed with a seed taken from the table's
    /// check, so a wrong key or a wrong table both show.
    static func entryCheck(_ key: UnsafeRawBufferPointer, tableCheck: UInt32) -> UInt32 {
        UInt32(truncatingIfNeeded: xxh3(key, seed: entryCheckSeed ^ UInt64(tableCheck)))
    }

    /// A hash of bytes kept only in memory (the batch's tables of lines and bundle references,
    /// `BundleIndexJSON`), never stored in the index.
    package static func memory(_ bytes: UnsafeRawBufferPointer) -> UInt64 { xxh3(bytes, seed: memorySeed) }

    /// A string's UTF-8 hashed with `seed`, kept only in memory (`AnswerCache`'s queries, the
    /// paths of `OpenedBundles`), never stored in the index.
    static func memory(_ text: String, seed: UInt64) -> UInt64 { xxh3(text, seed: memorySeed ^ seed) }

    /// A bundle's identifiers as one hash (`RetiredIDs.identity(of:)`), from their encoding.
    static func retiredIdentity(_ encoded: UnsafeRawBufferPointer) -> UInt64 { xxh3(encoded, seed: retiredSeed) }

    private static let checkSeed: UInt64 = 0x6275_6E64_6C65_6964
    private static let retiredSeed: UInt64 = 0x7265_7469_7265_6400
    private static let memorySeed: UInt64 = 0x6D65_6D6F_7279_0000
    private static let tableSeed: UInt64 = 0x7461_626C_6500_0000
    private static let entryCheckSeed: UInt64 = 0x656E_7472_7900_0000

    private static func xxh3(_ s: String, seed: UInt64) -> UInt64 {
        s.withUTF8Bytes { xxh3(UnsafeRawBufferPointer($0), seed: seed) }
    }

    private static func xxh3(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        XXH3_64bits_withSeed(bytes.baseAddress, bytes.count, seed)
    }
}
