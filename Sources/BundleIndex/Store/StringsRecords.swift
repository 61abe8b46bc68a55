/// Keys of the `strings` database (docs/index-format.md), 12 bytes:
///
///     [bundle id: u32 BE][hash: u64 BE]
///
/// A table record's hash is `Hashing.table` of the table file's path relative to the bundle
/// root; an entry record's, `Hashing.entry` of the key seeded with its table's hash. Both kinds
/// share the bundle's 64-bit space (the build fails on a collision, as for resources), and a
/// bundle's records form one key range, removed with it and appended when it is new.
package struct StringsKey: Equatable {
    static let size = 12
    let bundle: UInt64
    let hash: UInt64

    /// A table file's key parts, computed once per lookup.
    package struct Table {
        let path: String
        let hash: UInt64
        let check: UInt32

        package init(_ path: String) {
            self.path = path
            hash = Hashing.table(path)
            check = Hashing.tableCheck(path)
        }
    }

    static func table(bundle: UInt64, _ table: Table) -> StringsKey {
        StringsKey(bundle: bundle, hash: table.hash)
    }

    static func entry(bundle: UInt64, _ table: Table, key: UnsafeRawBufferPointer) -> StringsKey {
        StringsKey(bundle: bundle, hash: Hashing.entry(key, table: table.hash))
    }

    var bytes: [UInt8] { withBytes { Array($0) } }

    /// The key's bytes on the stack: three big-endian u32 words.
    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        var words = (UInt32(truncatingIfNeeded: bundle).bigEndian,
                     UInt32(truncatingIfNeeded: hash >> 32).bigEndian, UInt32(truncatingIfNeeded: hash).bigEndian)
        return try withUnsafeBytes(of: &words) { try body($0) }
    }
}

/// The records of one bundle's strings tables, in key order (docs/index-format.md, "strings
/// tables"):
///
/// * table: tag `L`, check u32 of the file's path (`Hashing.tableCheck`), its
///   modification time (u64 ns), then the form:
///   - 0: the file was not read (over the size limit);
///   - 1: its entries are entry records; the count follows (varint);
///   - 2: its entries are here (a small table): count (varint), then per entry its entry hash
///     (u64), check (u32) and value (varint length, UTF-8). Most tables of generated trees hold
///     one entry or none, and an entry record of its own costs ~35 bytes besides the value;
/// * entry: tag `V`, check u32 (`Hashing.entryCheck`), then the value's UTF-8 up to the end.
package enum StringsRecords {
    static let tableTag: UInt8 = 0x4C  // 'L'
    static let entryTag: UInt8 = 0x56  // 'V'

    enum Form: UInt8 {
        case notRead = 0, entryRecords = 1, inline = 2
    }

    /// A table goes inline when it has at most this many entries, of at most `inlineBytes` of
    /// values together: small enough that scanning them costs less than a second read.
    static let inlineEntries = 4
    static let inlineBytes = 256

    /// Calls `body` with every record of `tables` in key order (the value buffer is valid only
    /// during the call). Throws `BundleIndexError.hashCollision` when two records of the bundle
    /// (tables or keys) share a hash.
    static func forEach(bundleID: UInt64, bundlePath: String, tables: [StringsTable],
                        _ body: (StringsKey, UnsafeRawBufferPointer) throws -> Void) throws {
        // Tables and entries share the bundle's hash space: every record first, then in order.
        var records: [(hash: UInt64, table: Int, key: String?, value: [UInt8])] = []
        var value = ByteWriter(capacity: 256)
        for (t, table) in tables.enumerated() {
            let ref = StringsKey.Table(table.path)
            value.removeAll()
            value.u8(tableTag)
            value.u32(ref.check)
            value.u64(table.modificationTime)
            guard case .entries(let entries) = table.content else {
                value.u8(Form.notRead.rawValue)
                records.append((ref.hash, t, nil, value.bytes))
                continue
            }
            let keyed = uniqueEntries(entries, ref)
            if keyed.count <= inlineEntries && keyed.reduce(0, { $0 + $1.entry.value.utf8.count }) <= inlineBytes {
                value.u8(Form.inline.rawValue)
                value.varint(keyed.count)
                for (hash, entry) in keyed {
                    value.u64(hash)
                    value.u32(check(entry.key, ref))
                    value.string(entry.value)
                }
                records.append((ref.hash, t, nil, value.bytes))
                continue
            }
            value.u8(Form.entryRecords.rawValue)
            value.varint(keyed.count)
            records.append((ref.hash, t, nil, value.bytes))
            for (hash, entry) in keyed {
                value.removeAll()
                value.u8(entryTag)
                value.u32(check(entry.key, ref))
                value.bytesAppending(entry.value.utf8)
                records.append((hash, t, entry.key, value.bytes))
            }
        }
        records.sort { $0.hash < $1.hash }
        func what(_ r: (hash: UInt64, table: Int, key: String?, value: [UInt8])) -> String {
            (r.key.map { "key \($0) of " } ?? "table ") + tables[r.table].path
        }
        for (i, r) in records.enumerated() {
            if i > 0 && records[i - 1].hash == r.hash {
                throw BundleIndexError.hashCollision("strings records: \(what(records[i - 1])) and \(what(r)) in \(bundlePath)")
            }
            try r.value.withUnsafeBytes { try body(StringsKey(bundle: bundleID, hash: r.hash), $0) }
        }
    }

    /// The entries with their hashes, one per key, in hash order (a small table's record lists
    /// them so: the same table, the same bytes). Keys equal only as Swift strings (lone UTF-16
    /// surrogates decode alike) are one key; other equal hashes are left to the caller's check.
    private static func uniqueEntries(_ entries: [StringsTable.Entry], _ ref: StringsKey.Table) -> [(hash: UInt64, entry: StringsTable.Entry)] {
        // By bytes: Swift's String equality would merge "é" spelled in one and in two scalars.
        var seen: Set<[UInt8]> = []
        return entries.compactMap { e in
            guard seen.insert(Array(e.key.utf8)).inserted else { return nil }
            return (e.key.withUTF8Bytes { Hashing.entry(UnsafeRawBufferPointer($0), table: ref.hash) }, e)
        }.sorted { $0.hash < $1.hash }
    }

    private static func check(_ key: String, _ ref: StringsKey.Table) -> UInt32 {
        key.withUTF8Bytes { Hashing.entryCheck(UnsafeRawBufferPointer($0), tableCheck: ref.check) }
    }

    /// Every record, copied (the verifier compares them with what is stored).
    package static func make(bundleID: UInt64, bundlePath: String, tables: [StringsTable]) throws -> [ResourceRecords.Record] {
        var out: [ResourceRecords.Record] = []
        try forEach(bundleID: bundleID, bundlePath: bundlePath, tables: tables) { key, value in
            out.append(ResourceRecords.Record(key: key.bytes, value: Array(value)))
        }
        return out
    }

    /// An entry record's value for `key`, nil when the record is of another key or table (or
    /// is a table record whose hash the key's happens to be).
    static func value(_ record: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, tableCheck: UInt32) throws -> String? {
        var r = ByteReader(record)
        let tag = try r.u8()
        if tag == tableTag { return nil }
        guard tag == entryTag else { throw IndexFormatError(what: "strings entry tag") }
        guard try r.u32() == Hashing.entryCheck(key, tableCheck: tableCheck) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: record[r.offset...]), as: UTF8.self)
    }

    /// What a table record answers for `key` (whose entry hash is `entryHash`): the value of an
    /// inline entry, `.missing` when the table has no such entry, `.notIndexed` when the file
    /// was not read or the record is another table's (a hash collision).
    static func lookup(_ record: UnsafeRawBufferPointer, _ table: StringsKey.Table, key: UnsafeRawBufferPointer,
                       entryHash: UInt64) throws -> TableAnswer {
        var r = ByteReader(record)
        guard try r.u8() == tableTag else { throw IndexFormatError(what: "strings table tag") }
        guard try r.u32() == table.check else { return .notIndexed }
        _ = try r.u64()
        switch Form(rawValue: try r.u8()) {
        case .notRead?: return .notIndexed
        case .entryRecords?: return .missing
        case .inline?:
            let check = Hashing.entryCheck(key, tableCheck: table.check)
            for _ in 0..<(try r.count()) {
                let hash = try r.u64(), entryCheck = try r.u32(), value = try r.slice()
                if hash == entryHash && entryCheck == check { return .found(String(decoding: value, as: UTF8.self)) }
            }
            return .missing
        case nil: throw IndexFormatError(what: "strings table form")
        }
    }

    enum TableAnswer: Equatable {
        case found(String), missing, notIndexed
    }

    /// A table record's modification time, nil when the record is another table's.
    static func modificationTime(_ record: UnsafeRawBufferPointer, _ table: StringsKey.Table) throws -> UInt64? {
        var r = ByteReader(record)
        guard try r.u8() == tableTag else { throw IndexFormatError(what: "strings table tag") }
        guard try r.u32() == table.check else { return nil }
        return try r.u64()
    }
}
