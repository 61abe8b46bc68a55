/// Which directories of a bundle have a record, kept in the bundle record (format 16): the top
/// 16 bits of each directory's key hash, sorted and distinct. A lookup does not read a directory
/// whose mark is absent: it has no record, so the read could only miss. Real bundles are looked
/// up in many folders they do not have (`<lproj>/<subdirectory>` for every language of the
/// search list), and at a million resources each such read touches a page the CPU does not
/// hold (docs/performance.md, "Directory marks").
///
/// A mark that is present may belong to another directory of the bundle (for a bundle of n
/// directories, a folder it lacks passes with a chance of about n in 65 536); the read then
/// finds no record, as it would without marks.
struct DirectoryMarks: Sendable, Equatable {
    /// Sorted, distinct.
    private(set) var marks: [UInt16]

    /// The marks of the directories hashed to `hashes` (`Hashing.directory` of each path).
    init(hashes: some Sequence<UInt64>) {
        var marks = hashes.map(Self.mark)
        marks.sort()
        var kept = 0
        for mark in marks where kept == 0 || marks[kept - 1] != mark {
            marks[kept] = mark
            kept += 1
        }
        marks.removeLast(marks.count - kept)
        self.marks = marks
    }

    /// The marks a build writes for a bundle's scanned directories.
    init(of directories: [ScannedDirectory]) {
        self.init(hashes: directories.lazy.map { Hashing.directory($0.path) })
    }

    private init(sorted marks: [UInt16]) { self.marks = marks }

    private static func mark(_ hash: UInt64) -> UInt16 { UInt16(truncatingIfNeeded: hash >> 48) }

    /// Whether the directory of key hash `hash` may have a record. False means it has none.
    func mayHold(_ hash: UInt64) -> Bool {
        let mark = Self.mark(hash)
        return marks.withUnsafeBufferPointer { marks in
            var low = 0, high = marks.count
            while low < high {
                let middle = (low + high) / 2
                if marks[middle] < mark { low = middle + 1 } else { high = middle }
            }
            return low < marks.count && marks[low] == mark
        }
    }

    /// A count, then each mark as two bytes, little-endian.
    func encode(into w: inout ByteWriter) {
        w.varint(marks.count)
        for mark in marks {
            w.u8(UInt8(truncatingIfNeeded: mark))
            w.u8(UInt8(truncatingIfNeeded: mark >> 8))
        }
    }

    /// The marks `encode(into:)` wrote. Marks out of order are damage.
    static func decode(from r: inout ByteReader) throws -> DirectoryMarks {
        let count = try r.count()
        guard count > 0 else { return DirectoryMarks(sorted: []) }
        let bytes = try r.take(UInt64(2 * count))
        var marks: [UInt16] = []
        marks.reserveCapacity(count)
        for index in 0..<count {
            let mark = UInt16(bytes[2 * index]) | UInt16(bytes[2 * index + 1]) << 8
            guard index == 0 || mark > marks[index - 1] else { throw IndexFormatError(what: "directory marks") }
            marks.append(mark)
        }
        return DirectoryMarks(sorted: marks)
    }

    /// Steps over the marks (the stamps-only decoding has no use for them).
    static func skip(in r: inout ByteReader) throws {
        _ = try r.take(UInt64(2 * (try r.count())))
    }
}
