/// Keys of the `strings` database (docs/index-format.md), 20 bytes like `ResourceKey`:
///
///     [bundle id: u32 BE][table hash: u64 BE][entry hash: u64 BE]
///
/// The table hash is `Hashing.table` of the table file's path relative to the bundle root; the
/// entry hash `Hashing.entry` of the key (0: the table record). A bundle's records form one key
/// range, removed with it.
struct StringsKey {
    /// A table file's key parts, computed once per lookup.
    struct Table {
        let path: String
        let hash: UInt64
        let check: UInt32

        init(_ path: String) {
            self.path = path
            hash = Hashing.table(path)
            check = Hashing.tableCheck(path)
        }
    }

    static func table(bundle: UInt64, _ table: Table) -> ResourceKey {
        ResourceKey(bundle: bundle, directory: table.hash, item: 0)
    }

    static func entry(bundle: UInt64, _ table: Table, key: UnsafeRawBufferPointer) -> ResourceKey {
        ResourceKey(bundle: bundle, directory: table.hash, item: nonZero(Hashing.entry(key, table: table.hash)))
    }

    /// 0 names the table record, so an entry hash of 0 is stored as 1.
    private static func nonZero(_ h: UInt64) -> UInt64 { h == 0 ? 1 : h }
}

/// The records of one bundle's strings tables, in key order (docs/index-format.md, "strings"):
///
/// * table (entry hash 0): tag `L`, the file's path (a reader compares it), its modification
///   time (u64 ns), then u8 1 and the number of entries (varint), or u8 0 when the file was not
///   read (over the size limit);
/// * entry: tag `V`, check u32 (`Hashing.entryCheck`), then the value's UTF-8 up to the end.
enum StringsRecords {
    static let tableTag: UInt8 = 0x4C  // 'L'
    static let entryTag: UInt8 = 0x56  // 'V'

    /// Calls `body` with every record of `tables` in key order (the value buffer is valid only
    /// during the call). Throws `BundleIndexError.hashCollision` when two tables, or two keys of
    /// one table, share a hash.
    static func forEach(bundleID: UInt64, bundlePath: String, tables: [StringsTable],
                        _ body: (ResourceKey, UnsafeRawBufferPointer) throws -> Void) throws {
        let sorted = tables.map { (ref: StringsKey.Table($0.path), table: $0) }.sorted { $0.ref.hash < $1.ref.hash }
        var value = ByteWriter(capacity: 256)
        for (i, (ref, table)) in sorted.enumerated() {
            if i > 0 && sorted[i - 1].ref.hash == ref.hash {
                throw BundleIndexError.hashCollision("strings tables \(sorted[i - 1].table.path) and \(table.path) in \(bundlePath)")
            }
            value.removeAll()
            value.u8(tableTag)
            value.string(table.path)
            value.u64(table.modificationTime)
            guard case .entries(let entries) = table.content else {
                value.u8(0)
                try value.withBytes { try body(StringsKey.table(bundle: bundleID, ref), $0) }
                continue
            }
            var keyed = entries.map { e in (key: e.key.withUTF8Bytes { StringsKey.entry(bundle: bundleID, ref, key: UnsafeRawBufferPointer($0)) }, entry: e) }
            keyed.sort { $0.key.item < $1.key.item }
            // Keys equal only as Swift strings (lone UTF-16 surrogates decode alike) are one key.
            var unique: [(key: ResourceKey, entry: StringsTable.Entry)] = []
            for k in keyed {
                if let last = unique.last, last.key.item == k.key.item {
                    if last.entry.key != k.entry.key {
                        throw BundleIndexError.hashCollision("keys \(last.entry.key) and \(k.entry.key) of \(table.path) in \(bundlePath)")
                    }
                    continue
                }
                unique.append(k)
            }
            value.u8(1)
            value.varint(unique.count)
            try value.withBytes { try body(StringsKey.table(bundle: bundleID, ref), $0) }
            for (key, entry) in unique {
                value.removeAll()
                value.u8(entryTag)
                value.u32(entry.key.withUTF8Bytes { Hashing.entryCheck(UnsafeRawBufferPointer($0), tableCheck: ref.check) })
                value.bytesAppending(entry.value.utf8)
                try value.withBytes { try body(key, $0) }
            }
        }
    }

    /// Every record, copied (the verifier compares them with what is stored).
    static func make(bundleID: UInt64, bundlePath: String, tables: [StringsTable]) throws -> [ResourceRecords.Record] {
        var out: [ResourceRecords.Record] = []
        try forEach(bundleID: bundleID, bundlePath: bundlePath, tables: tables) { key, value in
            out.append(ResourceRecords.Record(key: key.bytes, value: Array(value)))
        }
        return out
    }

    /// An entry record's value for `key`, nil when the record is of another key or table.
    static func value(_ record: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, tableCheck: UInt32) throws -> String? {
        var r = ByteReader(record)
        guard try r.u8() == entryTag else { throw IndexFormatError(what: "strings entry tag") }
        guard try r.u32() == Hashing.entryCheck(key, tableCheck: tableCheck) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: record[r.offset...]), as: UTF8.self)
    }

    /// What a table record says: nil when it is of another table (a hash collision), else
    /// whether the file was read.
    static func wasRead(_ record: UnsafeRawBufferPointer, path: String) throws -> Bool? {
        var r = ByteReader(record)
        guard try r.u8() == tableTag else { throw IndexFormatError(what: "strings table tag") }
        guard try r.slice().elementsEqual(path.utf8) else { return nil }
        _ = try r.u64()
        return try r.u8() == 1
    }

    /// A table record's path and modification time; nil for an entry record.
    static func stamp(_ record: UnsafeRawBufferPointer) throws -> FileStamp? {
        var r = ByteReader(record)
        guard try r.u8() == tableTag else { return nil }
        return FileStamp(path: try r.string(), modificationTime: try r.u64())
    }
}
