import Glibc
import Synchronization

/// LMDB trusts the pages it maps: a `data.mdb` overwritten in the middle (not truncated, not
/// foreign — those are caught when the index opens) can make a read follow a garbage pointer
/// into SIGBUS or SIGSEGV. A program that would rather report "the index is damaged" than die
/// installs this guard. It acts only on faults whose address lies inside the map of an index
/// this process opened; any other fault — a bug of ours or of the caller — takes the default
/// action and crashes as it should.
@_spi(Engine)
public enum MappedReadGuard {
    /// Installs SIGBUS and SIGSEGV handlers that, for a fault inside an index's map, write
    /// `message` to standard error and exit with `exitCode`. Call once, before opening the
    /// index: only maps opened afterwards are recorded.
    public static func install(message: String, exitCode: Int32) {
        let bytes = Array(message.utf8)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        buffer.initialize(from: bytes, count: bytes.count)
        MappedRanges.message = UnsafeBufferPointer(start: buffer, count: bytes.count)
        MappedRanges.exitCode = exitCode
        MappedRanges.recording = true
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { signal, info, _ in
            let address = UInt(bitPattern: info?.pointee._sifields._sigfault.si_addr)
            if MappedRanges.contains(address) {
                if let m = MappedRanges.message { _ = write(2, m.baseAddress, m.count) }
                _exit(MappedRanges.exitCode)
            }
            // Not ours to explain: the default action, taken when the faulting access runs again.
            Glibc.signal(signal, SIG_DFL)
        }
        action.sa_flags = SA_SIGINFO
        sigemptyset(&action.sa_mask)
        sigaction(SIGBUS, &action, nil)
        sigaction(SIGSEGV, &action, nil)
    }

    /// LMDB checks the structure of the pages it reads with `assert`s that abort the process
    /// (a zeroed branch page: "Assertion 'IS_LEAF(mp)' failed in mdb_cursor_next()"). Its
    /// assert callback (`mdb_env_set_assert`) runs before the abort: with the guard installed it
    /// reports the damaged index and exits like a fault in the map; without it, LMDB aborts.
    static func reportFailedAssertion() {
        guard MappedRanges.recording else { return }
        if let m = MappedRanges.message { _ = write(2, m.baseAddress, m.count) }
        _exit(MappedRanges.exitCode)
    }

    /// The first byte of every index map this process opened (Tests/FaultProbe touches a page
    /// of one past the end of its file to raise a fault the guard must own).
    @_spi(Testing)
    public static var mapStarts: [UInt] { MappedRanges.all.map(\.start) }
}

/// The address ranges of the LMDB maps this process opened, readable from a signal handler:
/// fixed slots of plain words, filled once per environment and never moved.
enum MappedRanges {
    private static let slots = 64
    nonisolated(unsafe) private static let starts = UnsafeMutablePointer<UInt>.allocate(capacity: slots)
    nonisolated(unsafe) private static let ends = UnsafeMutablePointer<UInt>.allocate(capacity: slots)
    private static let count = Atomic<Int>(0)
    nonisolated(unsafe) static var message: UnsafeBufferPointer<UInt8>?
    nonisolated(unsafe) static var exitCode: Int32 = 3

    /// True once `MappedReadGuard.install` ran: only then are maps recorded.
    nonisolated(unsafe) static var recording = false

    /// Records the map of the environment just opened on `directory`: the mappings of its
    /// `data.mdb` in /proc/self/maps (LMDB does not tell where it mapped the file: its
    /// `me_mapaddr` is set only for fixed maps).
    static func register(directory: String) {
        guard recording, let maps = readAll("/proc/self/maps") else { return }
        let file = (FileSystem.realPath(directory) ?? directory) + "/data.mdb"
        for line in maps.split(separator: UInt8(ascii: "\n")) where line.count > file.utf8.count {
            guard line.suffix(file.utf8.count).elementsEqual(file.utf8),
                  let dash = line.firstIndex(of: UInt8(ascii: "-")),
                  let space = line[dash...].firstIndex(of: UInt8(ascii: " ")),
                  let start = UInt(String(decoding: line[..<dash], as: UTF8.self), radix: 16),
                  let end = UInt(String(decoding: line[line.index(after: dash)..<space], as: UTF8.self), radix: 16)
            else { continue }
            let index = count.load(ordering: .relaxed)
            guard index < slots else { return }
            starts[index] = start
            ends[index] = end
            count.store(index + 1, ordering: .releasing)
        }
    }

    /// A whole file whose size stat does not know (/proc).
    private static func readAll(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { return out }
            out += chunk[..<n]
        }
    }

    static var all: [(start: UInt, end: UInt)] {
        (0..<count.load(ordering: .acquiring)).map { (starts[$0], ends[$0]) }
    }

    static func contains(_ address: UInt) -> Bool {
        let n = count.load(ordering: .acquiring)
        for i in 0..<n where address >= starts[i] && address < ends[i] { return true }
        return false
    }
}
