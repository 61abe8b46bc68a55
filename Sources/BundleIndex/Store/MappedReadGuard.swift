import CLMDBCalls
import Glibc
import Synchronization

/// LMDB trusts the pages it maps: a `data.mdb` overwritten in the middle (not truncated, not
/// foreign — those are caught when the index opens) can make a read follow a garbage pointer
/// into SIGBUS or SIGSEGV. A program that would rather report "the index is damaged" than die
/// installs this guard. It acts on faults whose address lies inside the map of an index this
/// process opened, and on any fault while the thread is inside a call into LMDB (`intoLMDB`): a
/// damaged page can make LMDB follow a pointer anywhere, NULL included. Any other fault — a bug
/// of ours or of the caller — takes the default action and crashes as it should.
@_spi(Engine)
public enum MappedReadGuard {
    /// Installs SIGBUS and SIGSEGV handlers that, for a fault inside an index's map or inside
    /// LMDB, write `message` to standard error and exit with `exitCode`. Call once, before
    /// opening the index: only maps opened afterwards are recorded. With `damageMark` (the path
    /// of `IndexStore.damageMark` in the index folder), the handler first creates that empty
    /// file, where it may: the index is then reported damaged without being read, and the next
    /// build replaces it, as it replaces damage it meets itself.
    /// `busMessage`, when given, is written for a SIGBUS instead (no mark is left for one).
    public static func install(message: String, exitCode: Int32, damageMark: String? = nil, busMessage: String? = nil) {
        func prepared(_ text: String) -> UnsafeBufferPointer<UInt8> {
            let bytes = Array(text.utf8)
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
            buffer.initialize(from: bytes, count: bytes.count)
            return UnsafeBufferPointer(start: buffer, count: bytes.count)
        }
        MappedRanges.message = prepared(message)
        MappedRanges.busMessage = busMessage.map(prepared)
        if let damageMark {
            // A C string the handler can pass to open(2) without allocating.
            let path = Array(damageMark.utf8CString)
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: path.count)
            copy.initialize(from: path, count: path.count)
            MappedRanges.damageMark = UnsafePointer(copy)
        }
        MappedRanges.exitCode = exitCode
        MappedRanges.prepareForFaults()
        MappedRanges.recording = true
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { signal, info, _ in
            // A signal another process sent (`kill -SEGV`: si_code 0 or less) is no fault of a
            // read: the process ends by it, as the sender asked.
            guard let info, info.pointee.si_code > 0 else {
                Glibc.signal(signal, SIG_DFL)
                raise(signal)
                return
            }
            let address = UInt(bitPattern: info.pointee._sifields._sigfault.si_addr)
            if bundleidx_lmdb_inside() != 0 || MappedRanges.contains(address) {
                // SIGSEGV is a pointer LMDB took from a damaged page. SIGBUS is a page the file
                // cannot give — a full file system under a sparse file, an I/O error; a file cut
                // short is caught when the index opens — so it leaves no mark: a healthy index
                // on a full disk must answer again once there is room (review w26).
                if signal == SIGSEGV { MappedRanges.markDamaged() }
                let m = signal == SIGBUS ? MappedRanges.busMessage ?? MappedRanges.message : MappedRanges.message
                if let m { _ = write(2, m.baseAddress, m.count) }
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
        MappedRanges.markDamaged()
        if let m = MappedRanges.message { _ = write(2, m.baseAddress, m.count) }
        _exit(MappedRanges.exitCode)
    }

    /// The first byte of every index map this process opened (Tests/FaultProbe touches a page
    /// of one past the end of its file to raise a fault the guard must own).
    @_spi(Testing)
    public static var mapStarts: [UInt] { MappedRanges.starts }
}

/// The files of the LMDB maps this process opened, and where they are mapped, readable from a
/// signal handler. Opening an index records only its `data.mdb`'s device and inode (one `fstat`);
/// where the file is mapped is looked up in /proc/self/maps when a fault arrives. Finding the map
/// at every open instead meant reading /proc/self/maps and resolving the index path, ~5 % of a
/// fresh `bundleidx query` process (perf), for a fault that almost never comes.
enum MappedRanges {
    private static let slots = 64
    nonisolated(unsafe) private static let devices = UnsafeMutablePointer<UInt64>.allocate(capacity: slots)
    nonisolated(unsafe) private static let inodes = UnsafeMutablePointer<UInt64>.allocate(capacity: slots)
    private static let count = Atomic<Int>(0)
    nonisolated(unsafe) static var message: UnsafeBufferPointer<UInt8>?
    nonisolated(unsafe) static var exitCode: Int32 = 3
    /// What a SIGBUS writes instead of `message`, when set.
    nonisolated(unsafe) static var busMessage: UnsafeBufferPointer<UInt8>?
    /// The damage mark's path (`MappedReadGuard.install`), nil: none is left.
    nonisolated(unsafe) static var damageMark: UnsafePointer<CChar>?

    /// Creates the damage mark, if there is one to create and the process may (signal-safe: one
    /// `open` and one `close`; never through a link).
    static func markDamaged() {
        guard let damageMark else { return }
        let fd = open(damageMark, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        if fd >= 0 { close(fd) }
    }

    /// True once `MappedReadGuard.install` ran: only then are maps recorded.
    nonisolated(unsafe) static var recording = false

    /// What the fault handler reads /proc/self/maps into: allocated by `install`, never freed.
    nonisolated(unsafe) private static var buffer = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)

    /// Allocates the buffer the fault handler reads into (a handler must not allocate).
    static func prepareForFaults() {
        if buffer.baseAddress == nil { buffer = .allocate(capacity: 16 << 10) }
    }

    /// Records the data file of an environment just opened (`fd`: LMDB's descriptor of
    /// `data.mdb`). A file already recorded is not recorded twice.
    static func register(dataFile fd: Int32) {
        guard recording else { return }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return }
        let n = count.load(ordering: .acquiring)
        for i in 0..<n where devices[i] == UInt64(st.st_dev) && inodes[i] == UInt64(st.st_ino) { return }
        guard n < slots else { return }
        devices[n] = UInt64(st.st_dev)
        inodes[n] = UInt64(st.st_ino)
        count.store(n + 1, ordering: .releasing)
    }

    /// True when `address` lies in a mapping of a recorded file. Safe in a signal handler: only
    /// open/read/close, and parsing on the buffer `prepareForFaults` allocated.
    static func contains(_ address: UInt) -> Bool {
        var found = false
        forEachRecordedMapping { start, end in
            if address >= start && address < end { found = true }
            return !found
        }
        return found
    }

    /// The first byte of every mapping of a recorded file.
    static var starts: [UInt] {
        var out: [UInt] = []
        forEachRecordedMapping { start, _ in out.append(start); return true }
        return out
    }

    /// Calls `body` with the range of every line of /proc/self/maps whose file is recorded,
    /// until it returns false.
    private static func forEachRecordedMapping(_ body: (UInt, UInt) -> Bool) {
        guard let base = buffer.baseAddress, count.load(ordering: .acquiring) > 0 else { return }
        let fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var filled = 0
        while true {
            let n = read(fd, base + filled, buffer.count - filled)
            if n < 0 && errno == EINTR { continue }
            let atEnd = n <= 0
            if !atEnd { filled += n }
            // Every complete line; at the end, what is left is one too.
            var lineStart = 0
            var i = 0
            while i < filled {
                if base[i] == UInt8(ascii: "\n") {
                    if let (start, end) = recordedRange(base + lineStart, i - lineStart), !body(start, end) { return }
                    lineStart = i + 1
                }
                i += 1
            }
            if atEnd {
                if lineStart < filled, let (start, end) = recordedRange(base + lineStart, filled - lineStart) {
                    _ = body(start, end)
                }
                return
            }
            // Keep the incomplete last line; a line longer than the buffer is dropped (no line
            // of ours is: a path is at most PATH_MAX, far below the buffer's size).
            if lineStart == 0 && filled == buffer.count { filled = 0; continue }
            memmove(base, base + lineStart, filled - lineStart)
            filled -= lineStart
        }
    }

    /// The range of one /proc/self/maps line (`start-end perms offset major:minor inode path`),
    /// when its device and inode are recorded.
    private static func recordedRange(_ line: UnsafeMutablePointer<UInt8>, _ length: Int) -> (UInt, UInt)? {
        var field = MapsLine(bytes: line, length: length)
        guard let start = field.number(radix: 16, until: "-"), let end = field.number(radix: 16, until: " ") else { return nil }
        field.skip(until: " ")                        // permissions
        field.skip(until: " ")                        // offset
        guard let major = field.number(radix: 16, until: ":"), let minor = field.number(radix: 16, until: " "),
              let inode = field.number(radix: 10, until: " "), inode != 0 else { return nil }
        // glibc's encoding of a device number (gnu_dev_makedev), as `stat` gives it.
        let device = (minor & 0xff) | ((major & 0xfff) << 8) | ((minor & ~0xff) << 12) | ((major & ~0xfff) << 32)
        let n = count.load(ordering: .acquiring)
        for i in 0..<n where devices[i] == device && inodes[i] == inode { return (UInt(start), UInt(end)) }
        return nil
    }
}

/// Reads the fields of one /proc/self/maps line in place (no allocation: it runs in a signal
/// handler; `ProcessMappings` reads with it too).
struct MapsLine {
    let bytes: UnsafeMutablePointer<UInt8>
    let length: Int
    var at = 0

    /// The number up to `stop` (or the end of the line), stepping over `stop`; nil when a byte
    /// before it is not a digit of `radix`, or there is none.
    mutating func number(radix: UInt64, until stop: Unicode.Scalar) -> UInt64? {
        var value: UInt64 = 0, digits = 0
        while at < length, bytes[at] != UInt8(ascii: stop) {
            let c = bytes[at]
            let digit: UInt64
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt64(c - UInt8(ascii: "a") + 10)
            default: return nil
            }
            value = value &* radix &+ digit
            digits += 1
            at += 1
        }
        at += 1
        return digits > 0 ? value : nil
    }

    mutating func skip(until stop: Unicode.Scalar) {
        while at < length, bytes[at] != UInt8(ascii: stop) { at += 1 }
        at += 1
    }
}
