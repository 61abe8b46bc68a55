import Glibc
import SystemPackage

/// Single questions to the file system, asked the same way by every room: does a path resolve,
/// is it a directory, when did it change, what does a small file hold.
/// A file or folder as the kernel names it: the same whatever path reached it.
package struct FileIdentity: Hashable, Sendable {
    package let device: UInt64
    package let inode: UInt64

    package init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }
}

package enum FileSystem {
    /// `O_PATH` (Linux: a handle for `*at` calls and `/proc/self/fd`, no read permission
    /// needed, nothing read); Glibc's Swift module does not export it.
    package static let openPath: Int32 = 0o10_000_000

    /// `realpath(3)`, or nil when the path does not resolve.
    package static func realPath(_ path: String) -> String? {
        guard !faulted(path), let p = realpath(path, nil) else {
            ShortageLog.noteFailure("realpath", path)
            return nil
        }
        defer { free(p) }
        return String(cString: p)
    }

    /// The real path of the entry `name` of the directory whose real path is `directory` —
    /// what `realPath(directory + "/" + name)` answers, or nil where it answers nil.
    /// `realpath(3)` asks `readlink` of every component from `/` on, each a walk of the path
    /// from `/` again. Here the kernel resolves the path once, in an `open` (`O_PATH`: no
    /// permission to read is needed, and nothing is read), and names what it opened
    /// (`/proc/self/fd/N`): three system calls, whatever the links. Where `/proc` cannot answer,
    /// the links past `directory` are followed one by one (`realPathPastDirectory`).
    /// `FileSystemTests.realPathOfLinks` compares both with `realpath(3)` on random trees of links.
    package static func realPath(of name: String, inRealDirectory directory: String) -> String? {
        let fd = open(PathText.child(name, of: directory), openPath | O_CLOEXEC)
        // The walk decides every failure too: out of descriptors is no answer about the path.
        guard fd >= 0 else { return realPathPastDirectory(of: name, inRealDirectory: directory) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = buffer.withUnsafeMutableBytes { readlink("/proc/self/fd/\(fd)", $0.baseAddress!, $0.count) }
        // A name the kernel gives a folder it cannot reach from our root, or one removed since,
        // is no path; a full buffer may be cut short.
        if length > 0, length < buffer.count - 1, buffer[0] == UInt8(ascii: "/"),
           let path = String(validating: buffer[..<length], as: UTF8.self), !path.hasSuffix(" (deleted)") {
            return path
        }
        return realPathPastDirectory(of: name, inRealDirectory: directory)
    }

    /// `realPath(of:inRealDirectory:)` asking `readlink` only of what lies past `directory`,
    /// component by component: a link that climbs back up (Debian's `X.app/Resources ->
    /// ../../../../share/GNUstep/X.app`) is the few components past where it lands.
    /// `directory` must hold no link; `..` is then its parent, as for `realpath`. Left to
    /// `realpath`: a target that is not valid UTF-8 or fills the buffer.
    package static func realPathPastDirectory(of name: String, inRealDirectory directory: String) -> String? {
        var resolved = PathText.components(directory, omittingEmpty: true)
        // Components still to resolve, the next one last.
        var pending = [name]
        var linksFollowed = 0
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        while let component = pending.popLast() {
            if component.isEmpty || component == "." { continue }
            if component == ".." {
                _ = resolved.popLast()
                continue
            }
            let candidate = "/" + (resolved + [component]).joined(separator: "/")
            let length = faulted(candidate) ? -1 : buffer.withUnsafeMutableBytes { readlink(candidate, $0.baseAddress!, $0.count) }
            if length < 0 {
                // Not a link: the component is real. A file followed by a name is refused by the
                // next `readlink` (ENOTDIR), as by `realpath`; followed by `.` or `..`, it is
                // asked here.
                guard errno == EINVAL else {
                    ShortageLog.noteFailure("readlink", candidate)
                    return nil
                }
                if let next = pending.last, next == "." || next == "..", !isDirectory(candidate) { return nil }
                resolved.append(component)
                continue
            }
            linksFollowed += 1
            // As `realpath`'s limit of links followed (ELOOP).
            guard linksFollowed <= 40 else { return nil }
            guard length < buffer.count - 1, let target = String(validating: buffer[..<length], as: UTF8.self) else {
                return realPath("/" + (resolved + [component] + pending.reversed()).joined(separator: "/"))
            }
            if target.utf8.first == UInt8(ascii: "/") { resolved.removeAll() }
            pending += PathText.components(target, omittingEmpty: true).reversed()
        }
        return "/" + resolved.joined(separator: "/")
    }

    /// `root` made absolute, when it names a directory (a link to one counts); else the bad
    /// input it is (a root to build, verify or watch). Made absolute, "" would be the current
    /// directory: an unset variable in a script (`bundleidx build "$ROOT"`) must not index, or
    /// verify, wherever the script runs. A `stat` short of memory is that error, not "no such
    /// directory".
    package static func rootDirectory(_ root: String, currentDirectory cwd: String) throws(BundleIndexError) -> String {
        guard !root.isEmpty else { throw .emptyPath }
        let path = PathText.absolute(root, currentDirectory: cwd)
        var st = stat()
        guard statNoting(path, &st) else {
            let code = errno
            if isShortage(code) { throw shortage("stat", path, code) }
            throw .badInput(path: root, reason: "no such directory")
        }
        guard st.st_mode & S_IFMT == S_IFDIR else { throw .badInput(path: root, reason: "not a directory") }
        return path
    }

    /// A directory and not a link to one (`lstat`).
    package static func isRealDirectory(_ path: String) -> Bool {
        var st = stat()
        return lstatNoting(path, &st) && st.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether `path` cannot be looked at for a reason other than its absence: a folder on the
    /// way that may not be searched (EACCES), a loop of links… (`lstat` failing with anything
    /// but ENOENT or ENOTDIR). Such a path is hidden, not gone.
    package static func isHidden(_ path: String) -> Bool {
        var st = stat()
        return !lstatNoting(path, &st) && errno != ENOENT && errno != ENOTDIR
    }

    /// A symbolic link, whatever it leads to (`lstat`).
    package static func isSymbolicLink(_ path: String) -> Bool {
        var st = stat()
        return lstatNoting(path, &st) && st.st_mode & S_IFMT == S_IFLNK
    }

    /// A directory, or a link to one (`stat`).
    package static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return statNoting(path, &st) && st.st_mode & S_IFMT == S_IFDIR
    }

    /// The status-change time (`st_ctim`) of `path`, following links, in nanoseconds, and its
    /// inode number; both 0 when it cannot be read. What stamps hold (docs/scanning.md,
    /// "Incremental builds").
    package static func stamp(_ path: String) -> Stamp {
        var st = stat()
        guard statNoting(path, &st) else { return (0, 0) }
        return stamp(st)
    }

    /// `stat(2)` of `path`, true when it succeeded; a failure for want of memory is noted
    /// (`ShortageLog`), and `errno` says why it failed.
    package static func statNoting(_ path: String, _ st: inout stat) -> Bool {
        if !faulted(path), stat(path, &st) == 0 { return true }
        ShortageLog.noteFailure("stat", path)
        return false
    }

    /// `lstat(2)`, as `statNoting`.
    package static func lstatNoting(_ path: String, _ st: inout stat) -> Bool {
        if !faulted(path), lstat(path, &st) == 0 { return true }
        ShortageLog.noteFailure("lstat", path)
        return false
    }

    /// `fstatat(2)` of `name` in the folder open as `fd` (`lstat`'s answer with
    /// `AT_SYMLINK_NOFOLLOW` in `flags`), as `statNoting`; `path` names it in the error.
    package static func fstatatNoting(_ fd: Int32, _ name: String, _ st: inout stat, flags: Int32 = 0,
                                      path: @autoclosure () -> String) -> Bool {
        if fstatat(fd, name, &st, flags) == 0 { return true }
        ShortageLog.noteFailure(flags & AT_SYMLINK_NOFOLLOW != 0 ? "lstat" : "stat", path())
        return false
    }

    /// Debug builds: whether a test made the status calls on `path` fail (`FileFaults`), with
    /// `errno` set; release builds: false.
    @inline(__always)
    private static func faulted(_ path: @autoclosure () -> String) -> Bool {
        #if DEBUG
        if let code = FileFaults.code(for: .status, at: path()) {
            errno = code
            return true
        }
        #endif
        return false
    }

    /// A change time (ns) and an inode number: what a stamp holds of a path.
    package typealias Stamp = (changeTime: UInt64, inode: UInt64)

    /// `st`'s change time (`changeTime`) and inode number.
    package static func stamp(_ st: stat) -> Stamp {
        (changeTime(st), UInt64(st.st_ino))
    }

    /// `st`'s status-change time in nanoseconds. Stamps hold it, not the modification time:
    /// the kernel sets it to the present on every write, rename, `chmod`, link count change
    /// and `utimensat`, and no call sets it back, so `touch -d`, `tar x` or `cp -p` of an
    /// older copy, and two folders exchanged by renames, all show.
    package static func changeTime(_ st: stat) -> UInt64 {
        nanoseconds(st.st_ctim)
    }

    /// A `timespec` in nanoseconds.
    package static func nanoseconds(_ t: timespec) -> UInt64 {
        UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
    }

    /// The bytes of a regular file of at most `limit` bytes, or nil (also for a FIFO, a device
    /// or a socket, which are never opened for reading, and when the process is short of
    /// descriptors or memory).
    package static func readFile(_ path: String, limit: Int = 64 << 20) -> [UInt8]? {
        (try? readFileStamped(path, limit: limit))?.bytes
    }

    /// Whether a failed `open` or read says the process or the system ran short — of open
    /// files (`EMFILE`, `ENFILE`) or kernel memory (`ENOMEM`) — rather than anything about the
    /// file or folder. A scan that meets one stops with `shortage(_:_:_:)` instead of taking the
    /// file for unreadable: an unreadable file is indexed as Foundation reads it (an empty table,
    /// an empty Info dictionary) with the file's stamp, which no later event would correct, since
    /// the file did not change (docs/reliability.md, "Short of descriptors or memory").
    package static func isShortage(_ code: Int32) -> Bool {
        code == EMFILE || code == ENFILE || code == ENOMEM
    }

    /// The error a scan stops with when `call` on `path` failed with `code`, a shortage.
    package static func shortage(_ call: String, _ path: String, _ code: Int32) -> BundleIndexError {
        .system(call: "\(call) \(path)", errno: Errno(rawValue: code))
    }

    /// `openat(base, relative ?? path, flags)`, where the scans open what they read; `path` is
    /// the full path. In debug builds a test may fail it first (`FileFaults`).
    package static func openDescriptor(_ path: String, relative: String? = nil, in base: Int32 = AT_FDCWD,
                                       flags: Int32) -> Int32 {
        #if DEBUG
        if let code = FileFaults.code(for: .open, at: path) {
            errno = code
            return -1
        }
        #endif
        return openat(base, relative ?? path, flags)
    }

    /// What `readFileStamped` found.
    package struct StampedRead {
        /// The bytes, nil when the file is not a readable regular file of at most the limit.
        package var bytes: [UInt8]?
        /// The file's change time (`stamp(path)`), 0 when there is no such file.
        package var changeTime: UInt64 = 0
        /// A regular file larger than the limit (not read).
        package var oversized = false
    }

    /// `readFile` and `changeTime` with one `open` and one `fstat` (strings tables: every
    /// one of a tree is read at build). Throws only for a shortage (`isShortage`).
    package static func readFileStamped(_ path: String, limit: Int) throws(BundleIndexError) -> StampedRead {
        // O_NONBLOCK: opening a FIFO named like a file must not wait for a writer; fstat
        // then turns away everything but a regular file.
        let fd = openDescriptor(path, flags: O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if isShortage(code) { throw shortage("open", path, code) }
            return StampedRead(bytes: nil, changeTime: stamp(path).changeTime)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let code = errno
            if isShortage(code) { throw shortage("stat", path, code) }
            return StampedRead()
        }
        var result = StampedRead(bytes: nil, changeTime: changeTime(st))
        guard st.st_mode & S_IFMT == S_IFREG else { return result }
        guard Int(st.st_size) <= limit else { result.oversized = true; return result }
        result.bytes = try readAll(fd, size: Int(st.st_size), path: path)
        return result
    }

    /// Up to `size` bytes from `fd`; nil on a read error but a shortage, which throws.
    private static func readAll(_ fd: Int32, size: Int, path: String) throws(BundleIndexError) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < out.count {
            let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                if isShortage(code) { throw shortage("read", path, code) }
                return nil
            }
            if n == 0 { break }
            done += n
        }
        return done == out.count ? out : Array(out[..<done])
    }

    /// The names in a directory but `.` and `..`, or nil when it cannot be read.
    static func names(in path: String) -> [String]? {
        guard let dir = opendir(path) else {
            ShortageLog.noteFailure("opendir", path)
            return nil
        }
        defer { closedir(dir) }
        var out: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { out.append(name) }
        }
        return out
    }

    /// True when `path` is a directory with no entries but `.` and `..` (false when unreadable).
    static func isEmptyDirectory(_ path: String) -> Bool {
        names(in: path)?.isEmpty ?? false
    }
}
