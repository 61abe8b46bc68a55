import Glibc

/// The entries of a directory record (format 6), in byte order. Each name is front-coded
/// against the one before it — sorted names of one directory share ~6 of ~14 bytes in the
/// benchmark trees — and every `blockSize`-th entry starts afresh, so that a reader decodes at
/// most one block to reach an entry by index or by name:
///
///     count varint
///     per entry: flags u8, readdir rank varint, shared prefix length varint,
///                the rest of the name (varint length + bytes)
///     after the entries: where each block but the first starts, counted from the first
///                entry, u32 each (⌈count / blockSize⌉ − 1 of them, up to the end of the record)
///
/// The first block starts at offset 0, so its offset is not stored (format 14: most directories
/// hold fewer than `blockSize` entries, and their records had a table of one 0).
enum FrontCodedEntries {
    static let blockSize = 16

    /// Where the block table of a listing of `count` entries starts, in a buffer of `length`
    /// bytes whose entries start at `entriesStart`.
    private static func blockTableStart(count: Int, entriesStart: Int, length: Int) throws -> Int {
        let blocks = (count + blockSize - 1) / blockSize
        let tableStart = length - 4 * max(blocks - 1, 0)
        guard tableStart >= entriesStart else { throw IndexFormatError(what: "directory listing block table") }
        return tableStart
    }

    /// Moves `r` to the first entry of block `block`: offset 0 for the first, else the offset
    /// the block table holds.
    private static func seekBlock(_ block: Int, in r: inout ByteReader, entriesStart: Int, tableStart: Int) throws {
        var offset = 0
        if block > 0 {
            try r.seek(to: tableStart + 4 * (block - 1))
            offset = Int(try r.u32())
            guard offset < tableStart - entriesStart else { throw IndexFormatError(what: "directory block offset") }
        }
        try r.seek(to: entriesStart + offset)
    }

    static func encode(_ entries: [DirectoryEntry], into w: inout ByteWriter) {
        w.varint(entries.count)
        let start = w.count
        var blockStarts: [UInt32] = []
        blockStarts.reserveCapacity(entries.count / blockSize + 1)
        var previous: [UInt8] = []
        for (index, e) in entries.enumerated() {
            e.name.withUTF8Bytes { name in
                var shared = 0
                if index % blockSize == 0 {
                    if index > 0 { blockStarts.append(UInt32(w.count - start)) }
                } else {
                    let limit = min(previous.count, name.count)
                    while shared < limit && previous[shared] == name[shared] { shared += 1 }
                }
                w.u8(e.flags.rawValue)
                w.varint(UInt64(e.rank))
                w.varint(shared)
                w.string(utf8: UnsafeBufferPointer(rebasing: name[shared...]))
                previous.removeAll(keepingCapacity: true)
                previous.append(contentsOf: name)
            }
        }
        for offset in blockStarts { w.u32(offset) }
    }

    /// Every entry; `r` is at the count and ends past the block table.
    static func decodeAll(from r: inout ByteReader) throws -> [DirectoryEntry] {
        var cursor = try Cursor(&r)
        var out: [DirectoryEntry] = []
        out.reserveCapacity(cursor.count)
        for index in 0..<cursor.count { out.append(try cursor.entry(at: index)) }
        guard cursor.readAllEntries else { throw IndexFormatError(what: "directory listing length") }
        try r.seek(to: r.length)
        return out
    }

    /// The flags of the entry called `name`, nil when there is none; `r` is at the count of a
    /// listing that runs to the end of `r`'s buffer. Blocks start with a whole name, so a
    /// binary search over the block table finds the one block that may hold `name`, and its
    /// entries (at most `blockSize`) are compared with `name` as their front coding unfolds,
    /// without building a name (format 13: plain lookups read the listing, not a record per
    /// name). Damaged offsets and prefixes throw, as `Cursor` does.
    static func flags(of name: UnsafeRawBufferPointer, in r: inout ByteReader) throws -> DirectoryEntry.Flags? {
        let count = try r.count()
        let entriesStart = r.offset
        let blocks = (count + blockSize - 1) / blockSize
        let tableStart = try blockTableStart(count: count, entriesStart: entriesStart, length: r.length)
        func seekBlock(_ block: Int) throws {
            try FrontCodedEntries.seekBlock(block, in: &r, entriesStart: entriesStart, tableStart: tableStart)
        }
        /// The first entry of block `block` (shared prefix 0): its name and flags.
        func head(_ block: Int) throws -> (name: UnsafeRawBufferPointer, flags: DirectoryEntry.Flags) {
            try seekBlock(block)
            let flags = DirectoryEntry.Flags(rawValue: try r.u8())
            _ = try r.varint()
            guard try r.varint() == 0 else { throw IndexFormatError(what: "directory entry prefix") }
            return (try r.slice(), flags)
        }
        // The last block whose first name is not after `name` (one block: the scan below
        // starts at its first entry all the same).
        var low = 0, high = blocks - 1
        var block = blocks == 1 ? 0 : -1
        if blocks == 1 { low = 1 }
        while low <= high {
            let middle = (low + high) / 2
            let first = try head(middle)
            let order = compareBytes(first.name, name)
            if order == 0 { return first.flags }
            if order < 0 {
                block = middle
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        guard block >= 0 else { return nil }
        try seekBlock(block)
        // Entries are in byte order. `matched`: how many first bytes the last entry read, which
        // sorts before `name`, shares with it. An entry sharing more than that with the last one
        // has the same byte there, still before `name`'s; one sharing at most that many agrees
        // with `name` up to its shared length, and its rest decides.
        var matched = 0
        var previousLength = 0
        for index in 0..<min(blockSize, count - block * blockSize) {
            let flags = DirectoryEntry.Flags(rawValue: try r.u8())
            _ = try r.varint()
            let shared = try r.varint()
            guard index == 0 ? shared == 0 : shared <= UInt64(previousLength) else {
                throw IndexFormatError(what: "directory entry prefix")
            }
            let rest = try r.slice()
            guard r.offset <= tableStart else { throw IndexFormatError(what: "directory entries overrun the block table") }
            previousLength = Int(shared) + rest.count
            if Int(shared) > matched { continue }
            let tail = UnsafeRawBufferPointer(rebasing: name[Int(shared)...])
            let common = commonPrefix(rest, tail)
            if common == rest.count && common == tail.count { return flags }
            let before = common == rest.count || (common < tail.count && rest[common] < tail[common])
            guard before else { return nil }
            matched = Int(shared) + common
        }
        return nil
    }

    /// How many first bytes `a` and `b` share.
    private static func commonPrefix(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let length = min(a.count, b.count)
        var i = 0
        while i < length && a[i] == b[i] { i += 1 }
        return i
    }

    /// Reads entries by index, forwards inside a block and through the block table across blocks.
    struct Cursor {
        let count: Int
        private var reader: ByteReader
        private let entriesStart: Int
        private let tableStart: Int
        /// The index of the entry `reader` is at, and the name before it: its first
        /// `nameLength` bytes of `name`, a buffer that only grows (each entry rewrites only the
        /// bytes after the prefix it shares with the one before; resizing the array for every
        /// entry was most of a `paths` lookup's listing pass).
        private var next = 0
        private var name: [UInt8] = []
        private var nameLength = 0

        /// `r` is at the count of a listing that runs to the end of `r`'s buffer.
        init(_ r: inout ByteReader) throws {
            count = try r.count()
            entriesStart = r.offset
            tableStart = try FrontCodedEntries.blockTableStart(count: count, entriesStart: entriesStart, length: r.length)
            reader = r
        }

        /// After the last entry: the entries end exactly where the block table starts.
        var readAllEntries: Bool { next == count && reader.offset == tableStart }

        mutating func entry(at index: Int) throws -> DirectoryEntry {
            guard index >= 0 && index < count else { throw IndexFormatError(what: "directory entry index") }
            let block = index / FrontCodedEntries.blockSize
            // Entries lie one after the other, so reading on reaches any later entry; a jump
            // through the block table serves going back and skipping whole blocks.
            if index < next || block > next / FrontCodedEntries.blockSize {
                try FrontCodedEntries.seekBlock(block, in: &reader, entriesStart: entriesStart, tableStart: tableStart)
                next = block * FrontCodedEntries.blockSize
            }
            var flags = DirectoryEntry.Flags(), rank: UInt32 = 0
            while next <= index { (flags, rank) = try advance() }
            return DirectoryEntry(name: String(decoding: name[..<nameLength], as: UTF8.self), flags: flags, rank: rank)
        }

        /// Reads every entry from the first, in order, handing `body` its name's bytes (valid
        /// only during the call), flags and rank, without building a name; `body` returns false
        /// to stop. Returns whether it read them all, up to the block table.
        @discardableResult
        mutating func forEach(_ body: (UnsafeRawBufferPointer, DirectoryEntry.Flags, UInt32) throws -> Bool) throws -> Bool {
            if next != 0 {
                try reader.seek(to: entriesStart)
                next = 0
            }
            while next < count {
                let (flags, rank) = try advance()
                guard try name.withUnsafeBytes({ try body(UnsafeRawBufferPointer(rebasing: $0[..<nameLength]), flags, rank) }) else {
                    return false
                }
            }
            guard readAllEntries else { throw IndexFormatError(what: "directory listing length") }
            return true
        }

        /// Reads the entry at `next` into `name` and moves past it.
        private mutating func advance() throws -> (DirectoryEntry.Flags, UInt32) {
            let flags = DirectoryEntry.Flags(rawValue: try reader.u8())
            let rank = UInt32(truncatingIfNeeded: try reader.varint())
            let shared = try reader.varint()
            let startsBlock = next % FrontCodedEntries.blockSize == 0
            guard startsBlock ? shared == 0 : shared <= UInt64(nameLength) else {
                throw IndexFormatError(what: "directory entry prefix")
            }
            let rest = try reader.slice()
            guard reader.offset <= tableStart else { throw IndexFormatError(what: "directory entries overrun the block table") }
            let length = Int(shared) + rest.count
            if length > name.count { name += repeatElement(0, count: max(length, 2 * name.count, 64) - name.count) }
            if let source = rest.baseAddress {
                name.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: Int(shared)).copyMemory(from: source, byteCount: rest.count) }
            }
            nameLength = length
            next += 1
            return (flags, rank)
        }
    }
}
