/// The entries of one directory without variant names, for exact-name look-ups in memory
/// (`DirectoryTables`): an open-addressing table of the names' hashes, each hit compared byte for
/// byte with the name it stands for, so a collision of hashes never answers for another name.
/// Three allocations however many entries: the object, one buffer of bytes (the directory's path,
/// then every name) and one of words (the slots, then per entry where its name ends and its flags,
/// then per entry its hash). A class, so that taking it out of `DirectoryTables` is one retain.
final class NameTable: Sendable {
    /// The directory's path (`pathLength` bytes), then each name in turn.
    private let bytes: [UInt8]
    private let pathLength: Int
    /// `slotCount` slots (an entry's position plus one; 0 is free), a power of two at least twice
    /// the entries; then per entry the end of its name in `bytes` (low 24 bits) and its flags
    /// (high 8 bits); then per entry the low 32 bits of its name's hash.
    private let words: [UInt32]
    private let slotCount: Int
    let count: Int

    /// The table of the directory `path` whose entries `entries` hands out (name bytes valid
    /// during the call, and flags) — the same entries each time it is called: it is called twice,
    /// to size the buffers, then to fill them. Names are at most 255 bytes (`NAME_MAX`); a listing
    /// past 16 MiB of names does not fit and gives nil.
    init?(path: UnsafeRawBufferPointer,
          entries: ((UnsafeRawBufferPointer, DirectoryEntry.Flags) throws -> Void) throws -> Void) rethrows {
        var count = 0, nameBytes = 0
        try entries { name, _ in
            count += 1
            nameBytes += name.count
        }
        guard path.count + nameBytes < 1 << 24 else { return nil }
        var slotCount = 8
        while slotCount < 2 * count { slotCount *= 2 }
        var bytes = [UInt8]()
        bytes.reserveCapacity(path.count + nameBytes)
        bytes.append(contentsOf: path)
        var words = [UInt32](repeating: 0, count: slotCount + 2 * count)
        var filled = 0
        try entries { name, flags in
            // Entries past the counted ones (not expected) are left out rather than overflow.
            guard filled < count else { return }
            bytes.append(contentsOf: name)
            let hash = UInt32(truncatingIfNeeded: Hashing.memory(name))
            words[slotCount + filled] = UInt32(bytes.count) | UInt32(flags.rawValue) << 24
            words[slotCount + count + filled] = hash
            var at = Int(hash) & (slotCount - 1)
            while words[at] != 0 { at = (at + 1) & (slotCount - 1) }
            words[at] = UInt32(filled + 1)
            filled += 1
        }
        self.bytes = bytes
        self.words = words
        self.pathLength = path.count
        self.slotCount = slotCount
        self.count = filled
    }

    /// Whether this is the table of the directory spelled `path`.
    func isListing(of path: UnsafeRawBufferPointer) -> Bool { name(0..<pathLength) { sameBytes($0, path) } }

    /// The bytes at `range` of `bytes` (the path or a name), valid only during the call.
    private func name<T>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// What the directory holds for a lookup of `name`: its entry of that name, or none.
    func candidates(of name: UnsafeRawBufferPointer) -> NameCandidates {
        flags(of: name).map(NameCandidates.exact) ?? .none
    }

    /// The flags of the entry called `name` (UTF-8, compared byte for byte), nil when none is.
    func flags(of name: UnsafeRawBufferPointer) -> DirectoryEntry.Flags? {
        let hash = UInt32(truncatingIfNeeded: Hashing.memory(name))
        let mask = slotCount - 1
        var at = Int(hash) & mask
        while words[at] != 0 {
            let i = Int(words[at]) - 1
            if words[slotCount + count + i] == hash {
                let end = Int(words[slotCount + i] & 0xFF_FFFF)
                let start = i == 0 ? pathLength : Int(words[slotCount + i - 1] & 0xFF_FFFF)
                if self.name(start..<end, { sameBytes($0, name) }) {
                    return DirectoryEntry.Flags(rawValue: UInt8(truncatingIfNeeded: words[slotCount + i] >> 24))
                }
            }
            at = (at + 1) & mask
        }
        return nil
    }
}
