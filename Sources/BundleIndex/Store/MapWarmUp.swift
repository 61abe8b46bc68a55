import CLMDB

import Glibc

/// `MADV_POPULATE_READ` (Linux 5.14), which Glibc's headers as Swift imports them do not name.
private let populateRead: Int32 = 22

extension LMDBEnvironment {
    /// Maps every page of `data.mdb` in use into this process now, so that no later read of
    /// them takes a page fault. `inMap` is any address inside the map (a value a read returned).
    /// Returns the bytes mapped: 0 when the kernel cannot populate a map (before Linux 5.14),
    /// refused, or the map was not found.
    ///
    /// Call it inside a read transaction, which keeps the map where it is (a resize waits for
    /// every open transaction). `madvise` reports trouble (a file cut short under the map) as
    /// an error, never a signal.
    package func populateMap(containing inMap: UnsafeRawPointer) -> Int {
        // LMDB names where it mapped the file only for MDB_FIXEDMAP (`me_mapaddr`); the
        // process's list of mappings names it always.
        // The mapping's offset in the file names where the file begins, should the map have
        // been split in several mappings.
        guard let mapping = ProcessMappings.mapping(containing: UInt(bitPattern: inMap)),
              mapping.fileOffset <= mapping.start else { return 0 }
        let fileStart = mapping.start - mapping.fileOffset
        let bytes = min(usedBytes(), Int(mapping.end - fileStart))
        guard bytes > 0, let base = UnsafeMutableRawPointer(bitPattern: fileStart) else { return 0 }
        // LMDB advised the map MADV_RANDOM (MDB_NORDAHEAD): a page not in the page cache would
        // be read from the disk alone. Asking for the whole range ahead first reads it in large
        // requests, and costs little when it is cached already.
        _ = madvise(base, bytes, MADV_WILLNEED)
        return madvise(base, bytes, populateRead) == 0 ? bytes : 0
    }
}

/// This process's memory mappings, as /proc/self/maps lists them.
enum ProcessMappings {
    /// One line of /proc/self/maps: a mapping's first address, the one past its end, and
    /// the offset in its file (0 for memory that is not a file's).
    struct Mapping {
        let start: UInt
        let end: UInt
        let fileOffset: UInt
    }

    /// The mapping holding `address`.
    static func mapping(containing address: UInt) -> Mapping? {
        guard let text = procSelfMaps() else { return nil }
        for line in text.split(separator: UInt8(ascii: "\n")) {
            // `start-end perms offset device inode path`, numbers in hexadecimal.
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 3, omittingEmptySubsequences: true)
            guard fields.count >= 3, let dash = fields[0].firstIndex(of: UInt8(ascii: "-")),
                  let start = hexadecimal(fields[0][..<dash]), let end = hexadecimal(fields[0][(dash + 1)...]),
                  let offset = hexadecimal(fields[2]) else { continue }
            if address >= start && address < end { return Mapping(start: start, end: end, fileOffset: offset) }
        }
        return nil
    }

    /// The whole of /proc/self/maps (its size reads as 0, so it is read until the end).
    private static func procSelfMaps() -> [UInt8]? {
        let fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { return out }
            out.append(contentsOf: chunk[..<n])
        }
    }

    private static func hexadecimal(_ digits: ArraySlice<UInt8>) -> UInt? {
        guard !digits.isEmpty, digits.count <= 16 else { return nil }
        var value: UInt = 0
        for c in digits {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt(c - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        return value
    }
}
