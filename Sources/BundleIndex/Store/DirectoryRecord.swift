/// A directory's record, stored under the 12-byte key `[bundle][directory]` (format 14): its
/// path, its time and its listing, which answers every lookup in the directory with this one
/// read (format 13), and what an incremental build needs of it (format 15):
///
///     tag 'D', flags u8 (1: variant names follow; 2: the walk enters the folder when its
///     bundle is unchanged, 4: the walk passes over it; 8: strings tables follow; 16: an inode
///     number follows the time), path, change time u64 (ns), [inode number (varint)],
///     [variant names: their byte length (varint), count (varint), per name in byte order the
///      name (varint length + UTF-8), its candidates' count and their indices in the listing
///      (varint each, increasing), then where each name starts, counted from the first, u32
///      each (a binary search reaches any name)],
///     [strings tables: their byte length (varint), then the index in the listing of each entry
///      that is a strings table — a `.strings` or `.stringsdict` name, not a directory — varint
///      each, increasing],
///     the listing (`FrontCodedEntries`)
///
/// A name that only the entry of exactly that name answers is found in the listing
/// (`FrontCodedEntries.flags(of:in:)`). A name that variants answer (`logo.png` for
/// `logo-linux.png`, `icon~ipad.png`; docs/search-pattern.md, "Platform and device variants")
/// is listed among the variant names with every entry a lookup of it may return, for every
/// target CF knows; the query picks among them (`ResourceSearch.choose`). The walk flags and the
/// strings tables spare an incremental build a pass over every stored entry (docs/scanning.md,
/// "Folders the walk passes over").
package struct DirectoryRecord {
    package let path: String
    package let changeTime: UInt64
    /// `ScannedDirectory.inode` (format 18): 0, and not stored, for most folders.
    package let inode: UInt64
    package let entries: [DirectoryEntry]
    /// Names that variants answer, in byte order, with the indices in `entries` of the entries
    /// a lookup of the name may return (ascending): the variants and the entry of that name.
    package let variantNames: [VariantName]
    /// What the walk of an incremental build does with the folder if its bundle is unchanged.
    package let unchangedWalk: UnchangedWalk

    package struct VariantName: Equatable {
        package let name: String
        package let candidates: [Int]
    }

    /// The flag bit saying variant names follow the time.
    static let hasVariantNames: UInt8 = 1
    /// The flag bits of `unchangedWalk` (`.enter`, `.passOver`).
    static let entered: UInt8 = 2, passedOver: UInt8 = 4
    /// The flag bit saying the strings tables' indices follow.
    static let hasTables: UInt8 = 8
    /// The flag bit saying an inode number follows the time.
    static let hasInode: UInt8 = 16

    package init(path: String, changeTime: UInt64, inode: UInt64 = 0, entries: [DirectoryEntry], variantNames: [VariantName],
                 unchangedWalk: UnchangedWalk = .none) {
        self.path = path
        self.changeTime = changeTime
        self.inode = inode
        self.entries = entries
        self.variantNames = variantNames
        self.unchangedWalk = unchangedWalk
    }

    /// The indices of `entries` that are strings tables (`StringsTable.isTable`, not a
    /// directory): the files whose own times an incremental build compares.
    static func tableIndices(_ entries: [DirectoryEntry]) -> [Int] {
        entries.indices.filter { !entries[$0].isDirectory && StringsTable.isTable(entries[$0].name) }
    }

    func encode(into w: inout ByteWriter) {
        let tables = Self.tableIndices(entries)
        var flags = variantNames.isEmpty ? 0 : Self.hasVariantNames
        switch unchangedWalk {
        case .none: break
        case .enter: flags |= Self.entered
        case .passOver: flags |= Self.passedOver
        }
        if !tables.isEmpty { flags |= Self.hasTables }
        if inode != 0 { flags |= Self.hasInode }
        w.u8(RecordTag.directory.rawValue)
        w.u8(flags)
        w.string(path)
        w.u64(changeTime)
        if inode != 0 { w.varint(inode) }
        if !variantNames.isEmpty {
            // Length first: a lookup of a plain name steps over the section in one move.
            var section = ByteWriter(capacity: 64)
            section.varint(variantNames.count)
            let first = section.count
            var starts: [UInt32] = []
            starts.reserveCapacity(variantNames.count)
            for v in variantNames {
                starts.append(UInt32(section.count - first))
                section.string(v.name)
                section.varint(v.candidates.count)
                for index in v.candidates { section.varint(index) }
            }
            for start in starts { section.u32(start) }
            w.string(utf8: section.bytes)
        }
        if !tables.isEmpty {
            var section = ByteWriter(capacity: 16)
            for index in tables { section.varint(index) }
            w.string(utf8: section.bytes)
        }
        FrontCodedEntries.encode(entries, into: &w)
    }

    static func decode(_ buffer: UnsafeRawBufferPointer) throws -> DirectoryRecord {
        var r = ByteReader(buffer)
        let head = try readHead(&r)
        var variants: [VariantName] = []
        if let variantNames = head.variantNames {
            var section = ByteReader(variantNames)
            let count = try section.count()
            for _ in 0..<count {
                let name = try section.string()
                var candidates: [Int] = []
                for _ in 0..<(try section.count()) { candidates.append(Int(clamping: try section.varint())) }
                variants.append(VariantName(name: name, candidates: candidates))
            }
            // The start table follows the names exactly.
            guard section.length - section.offset == 4 * count else { throw IndexFormatError(what: "variant names length") }
        }
        let entries = try FrontCodedEntries.decodeAll(from: &r)
        guard variants.allSatisfy({ $0.candidates.allSatisfy { $0 < entries.count } }) else {
            throw IndexFormatError(what: "variant candidate index")
        }
        // The tables are the listing's own: a record that names others is not one this build wrote.
        guard try tableIndices(inSection: head.tables) == tableIndices(entries) else { throw IndexFormatError(what: "directory strings tables") }
        return DirectoryRecord(path: String(decoding: head.path, as: UTF8.self), changeTime: head.changeTime, inode: head.inode,
                               entries: entries, variantNames: variants, unchangedWalk: head.unchangedWalk)
    }

    /// The indices a strings-table section holds (none for nil), checked to increase.
    static func tableIndices(inSection section: UnsafeRawBufferPointer?) throws -> [Int] {
        guard let section else { return [] }
        var r = ByteReader(section)
        var out: [Int] = []
        while !r.isAtEnd {
            let index = Int(clamping: try r.varint())
            guard index > (out.last ?? -1) else { throw IndexFormatError(what: "directory strings table index") }
            out.append(index)
        }
        return out
    }

    /// The head of the record `r` reads — its path's bytes, its time and inode, its variant-name section
    /// (nil without one), its strings-table section (nil without one) and its walk flags —
    /// leaving `r` at the listing's count; throws when the value is not a directory record. The
    /// one reader of the head's layout (`decode`, `open`, `StoredDirectory`).
    static func readHead(_ r: inout ByteReader) throws
        -> (path: UnsafeRawBufferPointer, changeTime: UInt64, inode: UInt64, variantNames: UnsafeRawBufferPointer?,
            tables: UnsafeRawBufferPointer?, unchangedWalk: UnchangedWalk) {
        guard try r.u8() == RecordTag.directory.rawValue else { throw IndexFormatError(what: "directory record tag") }
        let flags = try r.u8()
        guard flags & ~(hasVariantNames | entered | passedOver | hasTables | hasInode) == 0,
              flags & (entered | passedOver) != entered | passedOver
        else { throw IndexFormatError(what: "directory record flags") }
        let path = try r.slice()
        let changeTime = try r.u64()
        let inode = flags & hasInode != 0 ? try r.varint() : 0
        let variantNames = flags & hasVariantNames != 0 ? try r.slice() : nil
        let tables = flags & hasTables != 0 ? try r.slice() : nil
        let walk: UnchangedWalk = flags & entered != 0 ? .enter : flags & passedOver != 0 ? .passOver : .none
        return (path, changeTime, inode, variantNames, tables, walk)
    }

    /// The variant names (nil when there are none) and a reader at the listing's count of the
    /// record at `buffer`, when it is the record of the directory `path`; nil when it is
    /// another directory's (a hash collision: the full path is compared).
    static func open(_ buffer: UnsafeRawBufferPointer,
                     path: UnsafeRawBufferPointer) throws -> (variantNames: UnsafeRawBufferPointer?, listing: ByteReader)? {
        var r = ByteReader(buffer)
        let head = try readHead(&r)
        guard compareBytes(head.path, path) == 0 else { return nil }
        return (head.variantNames, r)
    }

    /// What the record at `buffer` holds for a lookup of `name`, nil when it is the record of
    /// another directory than `path`: the candidates of a variant name, else the entry of
    /// exactly that name from the listing. Reads the path, the variant names when there are
    /// any, then one block head per step of a binary search and at most one block of entries;
    /// builds no `String` unless variants answer.
    static func candidates(_ buffer: UnsafeRawBufferPointer, path: UnsafeRawBufferPointer,
                           name: UnsafeRawBufferPointer) throws -> NameCandidates? {
        guard let (variants, listing) = try open(buffer, path: path) else { return nil }
        var r = listing
        if let variants, let indices = try candidateIndices(variants, name: name) {
            var cursor = try FrontCodedEntries.Cursor(&r)
            return .several(try indices.map { try cursor.entry(at: $0) })
        }
        return try FrontCodedEntries.flags(of: name, in: &r).map(NameCandidates.exact) ?? NameCandidates.none
    }

    /// The candidate indices the variant names list for `name`, nil when it is not one of them:
    /// a binary search over the start table (the names are in byte order).
    private static func candidateIndices(_ section: UnsafeRawBufferPointer, name: UnsafeRawBufferPointer) throws -> [Int]? {
        var r = ByteReader(section)
        let count = try r.count()
        let first = r.offset
        let table = r.length - 4 * count
        guard table >= first else { throw IndexFormatError(what: "variant names start table") }
        var low = 0, high = count - 1
        while low <= high {
            let middle = (low + high) / 2
            try r.seek(to: table + 4 * middle)
            let start = Int(try r.u32())
            guard start < table - first else { throw IndexFormatError(what: "variant name start") }
            try r.seek(to: first + start)
            let order = compareBytes(try r.slice(), name)
            if order < 0 {
                low = middle + 1
            } else if order > 0 {
                high = middle - 1
            } else {
                let n = try r.count()
                var out: [Int] = []
                out.reserveCapacity(n)
                for _ in 0..<n {
                    let index = Int(clamping: try r.varint())
                    guard index > (out.last ?? -1), r.offset <= table else { throw IndexFormatError(what: "variant candidate index") }
                    out.append(index)
                }
                return out
            }
        }
        return nil
    }
}

/// A directory record read in place, for the incremental build's checks (`UnchangedBundles`):
/// its path, time and walk flags decoded, its listing left as stored and decoded only as far
/// as asked. The bytes are the index's own: valid as long as the snapshot it came from.
package struct StoredDirectory {
    package let path: String
    package let changeTime: UInt64
    package let inode: UInt64
    /// What the walk does with the folder when its bundle is unchanged (format 15).
    package let unchangedWalk: UnchangedWalk
    /// The strings-table section, nil when the listing holds none.
    private let tables: UnsafeRawBufferPointer?
    /// The listing, at its count (`FrontCodedEntries`).
    private let listing: ByteReader
    /// How many entries it lists.
    package let count: Int

    init(_ buffer: UnsafeRawBufferPointer) throws {
        var r = ByteReader(buffer)
        let head = try DirectoryRecord.readHead(&r)
        path = String(decoding: head.path, as: UTF8.self)
        changeTime = head.changeTime
        inode = head.inode
        unchangedWalk = head.unchangedWalk
        tables = head.tables
        listing = r
        var peek = r
        count = try peek.count()
    }

    /// Whether `predicate` holds for the name of every entry that is a strings table, asked in
    /// byte order and no further than the first it does not hold for: the entries the record's
    /// strings-table section names, the listing read only as far as needed.
    package func tables(allSatisfy predicate: (String) throws -> Bool) throws -> Bool {
        guard tables != nil else { return true }
        var r = listing
        var cursor = try FrontCodedEntries.Cursor(&r)
        for index in try DirectoryRecord.tableIndices(inSection: tables) where try !predicate(try cursor.entry(at: index).name) {
            return false
        }
        return true
    }

    /// The listing decoded.
    package func entries() throws -> [DirectoryEntry] {
        var r = listing
        return try FrontCodedEntries.decodeAll(from: &r)
    }
}
