#if canImport(Glibc)
import Glibc

/// One inotify instance (inotify(7)). Thin: one method per system call, `EINTR` retried in
/// `read` only.
final class Inotify {
    let fd: Int32

    struct Event {
        let wd: Int32
        let mask: UInt32
        let cookie: UInt32
        /// The entry's name inside the watched directory; empty for events on the directory itself.
        let name: String

        func has(_ flag: Int32) -> Bool { mask & UInt32(bitPattern: flag) != 0 }
        var isDirectory: Bool { has(Int32(IN_ISDIR)) }
    }

    /// The events that can change an answer: entries appearing, disappearing or moving, a
    /// parsed file rewritten (closed after writing, or changed without being open for writing:
    /// `truncate(2)`), permissions changing, the directory itself going away.
    static let watchMask = UInt32(IN_CREATE | IN_DELETE | IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO
                                  | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW)

    /// `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`.
    init() throws {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw BundleIndexError.systemCall("inotify_init1") }
        self.fd = fd
    }

    deinit { close(fd) }

    /// `inotify_add_watch`; with `follow`, a link at `path` is followed (no `IN_DONT_FOLLOW`).
    /// Throws `ENOSPC` when `fs.inotify.max_user_watches` is exhausted.
    func addWatch(_ path: String, follow: Bool = false) throws -> Int32 {
        let wd = inotify_add_watch(fd, path, follow ? Self.watchMask & ~UInt32(IN_DONT_FOLLOW) : Self.watchMask)
        guard wd >= 0 else { throw BundleIndexError.systemCall("inotify_add_watch \(path)") }
        return wd
    }

    /// `inotify_rm_watch`; a watch the kernel already dropped is not an error.
    func removeWatch(_ wd: Int32) {
        _ = inotify_rm_watch(fd, wd)
    }

    /// Reads every queued event without blocking.
    func readEvents() throws -> [Event] {
        var events: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { return events }
                throw BundleIndexError.systemCall("read(inotify)")
            }
            if n == 0 { return events }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= n {
                    let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let cookie = raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
                    let len = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = raw[(offset + header)..<min(offset + header + len, n)]
                    let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                    events.append(Event(wd: wd, mask: mask, cookie: cookie, name: name))
                    offset += header + len
                }
            }
        }
    }

    /// The kernel's limit, for the message that explains how to raise it.
    static func maxUserWatches() -> Int? {
        guard let bytes = FileSystem.readFile("/proc/sys/fs/inotify/max_user_watches", limit: 64) else { return nil }
        return Int(String(decoding: bytes, as: UTF8.self).trimmingWhitespace())
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\n" || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\n" || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
#endif
