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
        guard var text = procSelfMaps() else { return nil }
        return text.withUnsafeMutableBufferPointer { all -> Mapping? in
            var lineStart = 0
            for i in 0...all.count where i == all.count || all[i] == UInt8(ascii: "\n") {
                defer { lineStart = i + 1 }
                guard i > lineStart else { continue }
                // `start-end perms offset device inode path`, numbers in hexadecimal.
                var line = MapsLine(bytes: all.baseAddress! + lineStart, length: i - lineStart)
                guard let start = line.number(radix: 16, until: "-"), let end = line.number(radix: 16, until: " ") else { continue }
                line.skip(until: " ")
                guard let offset = line.number(radix: 16, until: " ") else { continue }
                if address >= start && address < end { return Mapping(start: UInt(start), end: UInt(end), fileOffset: UInt(offset)) }
            }
            return nil
        }
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
}
