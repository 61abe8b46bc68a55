/// Keys of the `strings` database (docs/index-format.md, "strings tables"):
///
///     table record  [bundle id: u32 BE][table hash: u64 BE]                      12 bytes
///     entry chunk   [bundle id: u32 BE][table hash: u64 BE][upper hash: u64 BE]  20 bytes
///
/// A table hash is `Hashing.table` of the table file's path relative to the bundle root; a
/// chunk's upper hash is the largest entry hash it covers. LMDB orders a key before the longer
/// keys it begins, so a table record comes first and its chunks follow in hash order: a cursor
/// set at `[bundle][table][entry hash]` lands on the one chunk that may hold the entry. A
/// bundle's records form one key range, removed with it and appended when it is new.
package struct StringsKey: Equatable {
    let bundle: UInt64
    let table: UInt64
    /// The chunk's upper hash; nil for the table record.
    let upper: UInt64?

    /// A table file's key parts, computed once per lookup.
    package struct Table: Sendable {
        let path: String
        let hash: UInt64
        let check: UInt32

        package init(_ path: String) {
            self.path = path
            hash = Hashing.table(path)
            check = Hashing.tableCheck(path)
        }

        /// The entry hash and entry check of `key` in this table.
        func entry(_ key: UnsafeRawBufferPointer) -> (hash: UInt64, check: UInt32) {
            (Hashing.entry(key, table: hash), Hashing.entryCheck(key, tableCheck: check))
        }
    }

    static func table(bundle: UInt64, _ table: Table) -> StringsKey {
        StringsKey(bundle: bundle, table: table.hash, upper: nil)
    }

    /// The key a cursor is set at to find the chunk that may hold `entryHash`.
    static func chunk(bundle: UInt64, _ table: Table, covering entryHash: UInt64) -> StringsKey {
        StringsKey(bundle: bundle, table: table.hash, upper: entryHash)
    }

    var bytes: [UInt8] { withBytes { Array($0) } }

    /// The key's bytes on the stack: big-endian u32 words, three for a table record, five for
    /// a chunk.
    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let u = upper ?? 0
        var words = (UInt32(truncatingIfNeeded: bundle).bigEndian,
                     UInt32(truncatingIfNeeded: table >> 32).bigEndian, UInt32(truncatingIfNeeded: table).bigEndian,
                     UInt32(truncatingIfNeeded: u >> 32).bigEndian, UInt32(truncatingIfNeeded: u).bigEndian)
        return try withUnsafeBytes(of: &words) { try body(UnsafeRawBufferPointer(rebasing: $0.prefix(upper == nil ? 12 : 20))) }
    }

    /// The bytes a chunk's key shares with its table record's: bundle and table.
    static let tablePrefixSize = 12
}

/// The records of one bundle's strings tables, in key order (docs/index-format.md, "strings
/// tables"):
///
/// * table: tag `L`, check u32 of the file's path (`Hashing.tableCheck`), its change
///   time (ctime, u64 ns), then the form:
///   - 0: the file was not read (over the size limit);
///   - 1: its entries are in chunk records; their count follows (varint);
///   - 2: its entries are here (a table of at most `chunkBytes` of entries): count (varint),
///     then per entry, in hash order, its entry hash (u64), check (u32) and value (varint
///     length, UTF-8);
/// * chunk: tag `C`, the lowest entry hash it covers (u64; its key holds the highest), then its
///   entries as in form 2. A table's chunks cover every hash from 0 to 2^64 − 1 between them,
///   so a hash is in exactly one chunk's range, where the entry is or is not.
package enum StringsRecords {
    static let tableTag: UInt8 = 0x4C  // 'L'
    static let chunkTag: UInt8 = 0x43  // 'C'

    enum Form: UInt8 {
        case notRead = 0, chunked = 1, inline = 2
    }

    /// The most bytes of entries a chunk (or a table record holding its entries) takes. Four
    /// such records and their 20-byte keys fill a 4 KiB LMDB page, and no record needs an
    /// overflow page (LMDB's largest node on 4 KiB pages is ~2 KiB) unless one entry alone is
    /// larger. Smaller chunks would cost more keys; larger ones, more bytes decoded per lookup.
    static let chunkBytes = 960

    /// Calls `body` with every record of `tables` in key order (the value buffer is valid only
    /// during the call). Throws `BundleIndexError.hashCollision` when two tables of the bundle,
    /// or two keys of one table, share a hash.
    static func forEach(bundleID: UInt64, bundlePath: String, tables: [StringsTable],
                        _ body: (StringsKey, UnsafeRawBufferPointer) throws -> Void) throws {
        let refs = tables.map { StringsKey.Table($0.path) }
        let order = tables.indices.sorted { refs[$0].hash < refs[$1].hash }
        for (a, b) in zip(order, order.dropFirst()) where refs[a].hash == refs[b].hash {
            throw BundleIndexError.hashCollision("strings records: tables \(tables[a].path) and \(tables[b].path) in \(bundlePath)")
        }
        var value = ByteWriter(capacity: 1024), entries = ByteWriter(capacity: 4096)
        for t in order {
            let table = tables[t], ref = refs[t]
            value.removeAll()
            value.u8(tableTag)
            value.u32(ref.check)
            value.u64(table.changeTime)
            let tableKey = StringsKey.table(bundle: bundleID, ref)
            guard case .entries(let list) = table.content else {
                value.u8(Form.notRead.rawValue)
                try value.withBytes { try body(tableKey, $0) }
                continue
            }
            let keyed = try uniqueEntries(list, ref, in: "\(table.path) in \(bundlePath)")
            // Every entry encoded once; `ends[i]` is where entry i ends in `entries`.
            entries.removeAll()
            var ends: [Int] = []
            ends.reserveCapacity(keyed.count)
            for k in keyed {
                entries.u64(k.hash)
                entries.u32(k.check)
                list.withValue(k.index) { entries.string(utf8: $0) }
                ends.append(entries.count)
            }
            if entries.count <= chunkBytes {
                value.u8(Form.inline.rawValue)
                value.varint(keyed.count)
                value.bytesAppending(entries.bytes)
                try value.withBytes { try body(tableKey, $0) }
                continue
            }
            value.u8(Form.chunked.rawValue)
            value.varint(keyed.count)
            try value.withBytes { try body(tableKey, $0) }
            var first = 0, lower: UInt64 = 0
            while first < keyed.count {
                let start = first == 0 ? 0 : ends[first - 1]
                var last = first   // at least one entry, however large
                while last + 1 < keyed.count && ends[last + 1] - start <= chunkBytes { last += 1 }
                let upper = last == keyed.count - 1 ? UInt64.max : keyed[last].hash
                value.removeAll()
                value.u8(chunkTag)
                value.u64(lower)
                value.varint(last - first + 1)
                value.bytesAppending(entries.bytes[start..<ends[last]])
                try value.withBytes { try body(StringsKey(bundle: bundleID, table: ref.hash, upper: upper), $0) }
                first = last + 1
                lower = upper &+ 1
            }
        }
    }

    /// The entries' hashes, checks and places in `entries`, one per key, in hash order. Keys
    /// that are the same bytes (CF keys whose lone UTF-16 surrogates decoded alike) are one key,
    /// the first; two keys of one hash are a collision.
    private static func uniqueEntries(_ entries: StringsTable.Entries, _ ref: StringsKey.Table,
                                      in table: String) throws -> [(hash: UInt64, check: UInt32, index: Int)] {
        var keyed = (0..<entries.count).map { i in
            let (hash, check) = entries.withKey(i) { ref.entry($0) }
            return (hash: hash, check: check, index: i)
        }
        // Equal keys have equal hashes: sorted by hash, then by position, the first of a key leads.
        keyed.sort { $0.hash != $1.hash ? $0.hash < $1.hash : $0.index < $1.index }
        var kept = 0
        for k in keyed.indices {
            if kept > 0, keyed[kept - 1].hash == keyed[k].hash {
                let first = keyed[kept - 1].index, other = keyed[k].index
                guard entries.withKey(first, { a in entries.withKey(other) { b in sameBytes(a, b) } }) else {
                    throw BundleIndexError.hashCollision("strings records: keys \(entries[first].key) and \(entries[other].key) of \(table)")
                }
                continue
            }
            keyed[kept] = keyed[k]
            kept += 1
        }
        keyed.removeLast(keyed.count - kept)
        return keyed
    }

    /// Every record, copied (the verifier compares them with what is stored).
    package static func make(bundleID: UInt64, bundlePath: String, tables: [StringsTable]) throws -> [ResourceRecords.Record] {
        var out: [ResourceRecords.Record] = []
        try forEach(bundleID: bundleID, bundlePath: bundlePath, tables: tables) { key, value in
            out.append(ResourceRecords.Record(key: key.bytes, value: Array(value)))
        }
        return out
    }

    /// What a table record says: `.notIndexed` when the file was not read or the record is
    /// another table's (a hash collision), its entries when they are in the record, or that
    /// they are in chunks.
    static func head(_ record: UnsafeRawBufferPointer, _ table: StringsKey.Table) throws -> TableHead {
        var r = ByteReader(record)
        guard try r.u8() == tableTag else { throw IndexFormatError(what: "strings table tag") }
        guard try r.u32() == table.check else { return .notIndexed }
        _ = try r.u64()
        switch Form(rawValue: try r.u8()) {
        case .notRead?: return .notIndexed
        case .chunked?: return .chunked
        case .inline?: return .entries(try StringsEntries(lower: 0, upper: .max, &r))
        case nil: throw IndexFormatError(what: "strings table form")
        }
    }

    enum TableHead {
        case notIndexed, chunked, entries(StringsEntries)
    }

    /// What a table answers for a key: its value, no entry, or not known (the file was not read).
    enum TableAnswer: Equatable {
        case found(String), missing, notIndexed
    }

    /// A chunk record's entries, covering the hashes from its value's lower bound to `upper`
    /// (from its key).
    static func chunk(_ record: UnsafeRawBufferPointer, upper: UInt64) throws -> StringsEntries {
        var r = ByteReader(record)
        guard try r.u8() == chunkTag else { throw IndexFormatError(what: "strings chunk tag") }
        let lower = try r.u64()
        guard lower <= upper else { throw IndexFormatError(what: "strings chunk bounds") }
        return try StringsEntries(lower: lower, upper: upper, &r)
    }

    /// What a chunk record holds for the entry `hash`, `check`, read in place (a table's first
    /// ask: one entry wanted, nothing kept): entries are in hash order, so the scan stops at
    /// the first larger hash.
    static func lookup(chunk record: UnsafeRawBufferPointer, hash: UInt64, check: UInt32) throws -> TableAnswer {
        var r = ByteReader(record)
        guard try r.u8() == chunkTag else { throw IndexFormatError(what: "strings chunk tag") }
        _ = try r.u64()
        for _ in 0..<(try r.count()) {
            let entryHash = try r.u64(), entryCheck = try r.u32(), value = try r.slice()
            if entryHash > hash { break }
            if entryHash == hash && entryCheck == check { return .found(String(decoding: value, as: UTF8.self)) }
        }
        return .missing
    }

    /// A table record's change time, nil when the record is another table's.
    static func changeTime(_ record: UnsafeRawBufferPointer, _ table: StringsKey.Table) throws -> UInt64? {
        var r = ByteReader(record)
        guard try r.u8() == tableTag else { throw IndexFormatError(what: "strings table tag") }
        guard try r.u32() == table.check else { return nil }
        return try r.u64()
    }

    /// What a record of the `strings` database is, by its tag and form (`stats --detail`).
    static func kind(of value: UnsafeRawBufferPointer) -> String {
        switch (value.first, value.count > 13 ? value[13] : nil) {
        case (chunkTag?, _): return "entry chunks"
        case (tableTag?, Form.inline.rawValue?): return "tables with their entries"
        case (tableTag?, Form.chunked.rawValue?): return "table records of chunked tables"
        case (tableTag?, Form.notRead.rawValue?): return "tables not read (over the size limit)"
        default: return "other"
        }
    }
}

/// The entries of one chunk (or of a table record holding them), copied into memory: what a
/// lookup reads once and then answers every key of the chunk's range from. `lower...upper`
/// are the entry hashes it covers: a hash in that range that it does not hold is not in the
/// table.
package struct StringsEntries: Sendable {
    let lower: UInt64
    let upper: UInt64
    /// The entries as stored (per entry: hash u64, check u32, value varint length + UTF-8),
    /// one copy of the record's bytes: a table's first ask copies a chunk, it does not take
    /// it apart.
    private let bytes: [UInt8]
    /// Where each entry starts in `bytes`, in hash order.
    private let starts: [Int32]

    /// Reads the entry count (varint) and the entries that follow it, to the end of `r`.
    init(lower: UInt64, upper: UInt64, _ r: inout ByteReader) throws {
        self.lower = lower
        self.upper = upper
        let n = try r.count(), first = r.offset
        var starts: [Int32] = []
        starts.reserveCapacity(n)
        var previous: UInt64?
        for _ in 0..<n {
            starts.append(Int32(truncatingIfNeeded: r.offset - first))
            let hash = try r.u64()
            guard previous.map({ $0 < hash }) ?? true, hash >= lower && hash <= upper else {
                throw IndexFormatError(what: "strings entries out of order")
            }
            previous = hash
            _ = try r.u32()
            _ = try r.slice()
        }
        guard r.isAtEnd else { throw IndexFormatError(what: "bytes after the strings entries") }
        self.starts = starts
        bytes = Array(try r.bytes(first..<r.offset))
    }

    /// The number of entries.
    var count: Int { starts.count }

    /// Whether the entry with this hash, if the table has one, is here.
    func covers(_ hash: UInt64) -> Bool { hash >= lower && hash <= upper }

    /// The value of the entry with `hash` and `check`; nil when there is none (the hash must be
    /// covered). A hash found with another check is another key (or table) that collides.
    func value(hash: UInt64, check: UInt32) -> String? {
        bytes.withUnsafeBytes { b -> String? in
            // Offsets were checked when the entries were read.
            func hashAt(_ i: Int) -> UInt64 { UInt64(littleEndian: b.loadUnaligned(fromByteOffset: Int(starts[i]), as: UInt64.self)) }
            var low = 0, high = starts.count
            while low < high {
                let mid = (low + high) / 2
                if hashAt(mid) < hash { low = mid + 1 } else { high = mid }
            }
            guard low < starts.count, hashAt(low) == hash else { return nil }
            var r = ByteReader(UnsafeRawBufferPointer(rebasing: b[(Int(starts[low]) + 8)...]))
            guard (try? r.u32()) == check, let value = try? r.slice() else { return nil }
            return String(decoding: value, as: UTF8.self)
        }
    }

    /// The bytes this holds in memory (for the bound on what a bundle keeps).
    var memoryBytes: Int { bytes.count + starts.count * 4 }
}
