// QueryProfile INDEX - page-touch N — what touching a page of the index costs, with nothing of
// bundleidx around it: data.mdb is mapped read-only as LMDB maps it (advised MADV_RANDOM), N
// pages chosen at random (seeded) are read one byte each, each read timed alone, then the same
// pages again. The first pass takes a page fault per page not yet mapped (the kernel maps the
// neighbouring pages of the page cache with it, as many as the folios holding the file allow);
// the second finds them mapped. Run after reading the file through (`cat data.mdb > /dev/null`),
// so that no read goes to the disk. The gap between the two is what a lookup pays at 1M, and not
// at 1k, each time it is the first in the process to touch a page (docs/performance.md, "Scaling
// like for like", "What a first touch of the index costs"). KIND `page-touch-populated` first
// asks the kernel to map every page of the file (`madvise(MADV_POPULATE_READ)`) and reports what
// that took.
import BenchSupport
import Foundation

/// `MADV_POPULATE_READ` (Linux 5.14), which Glibc's headers as Swift imports them do not name.
private let populateRead: Int32 = 22

func pageTouch(index: String, count: Int, populate: Bool) throws {
    let file = index + "/data.mdb"
    let fd = open(file, O_RDONLY)
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0, status.st_size >= 4096 else { throw POSIXError(.EINVAL) }
    let size = Int(status.st_size)
    guard let map = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else {
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    defer { munmap(map, size) }
    // As LMDB advises its map under MDB_NORDAHEAD: a fault on a page not cached reads that page
    // alone. A cached page is mapped as the page cache holds it either way.
    _ = madvise(map, size, MADV_RANDOM)
    if populate {
        let t0 = nanoseconds()
        guard madvise(map, size, populateRead) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        print(String(format: "populated the whole map in %.1f ms", Double(nanoseconds() - t0) / 1e6))
    }
    let bytes = map.assumingMemoryBound(to: UInt8.self)
    var generator = SplitMix64(seed: 1)
    let pages = (0..<count).map { _ in Int(generator.next() % UInt64(size / 4096)) }
    var checksum = 0
    func pass() -> (p50: UInt64, mean: Double, faults: Double) {
        var times: [UInt64] = []
        times.reserveCapacity(pages.count)
        let faults = minorFaults()
        for page in pages {
            let t0 = nanoseconds()
            checksum &+= Int(bytes[page * 4096 + 7])
            times.append(nanoseconds() - t0)
        }
        let spent = Double(minorFaults() - faults) / Double(pages.count)
        return (times.sorted()[times.count / 2], Double(times.reduce(0, +)) / Double(times.count), spent)
    }
    let first = pass(), again = pass()
    print("\(file): \(size / 4096) pages, \(pages.count) random touches")
    print(String(format: "first touch   p50 %6d ns  mean %8.0f ns  faults %.2f", first.p50, first.mean, first.faults))
    print(String(format: "mapped again  p50 %6d ns  mean %8.0f ns  faults %.2f", again.p50, again.mean, again.faults))
    if checksum == 42 { print(" ") }
}
