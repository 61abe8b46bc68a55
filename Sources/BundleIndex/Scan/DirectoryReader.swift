import CLinuxDirents
import Glibc

/// Why a directory could not be listed.
struct DirectoryReadError: Error, CustomStringConvertible {
    let path: String
    let errno: Int32
    var description: String { "\(path): \(String(cString: strerror(errno)))" }
    /// The directory went away (or became a file, or a link that loops or whose path grows past
    /// `PATH_MAX`) while the scan ran: it is not unreadable, it is not there.
    var isGone: Bool { errno == ENOENT || errno == ENOTDIR || errno == ELOOP || errno == ENAMETOOLONG }
}

/// A directory's entries and its change time, read through one open directory.
struct DirectoryListing {
    let entries: [DirectoryEntry]
    /// Nanoseconds; taken before the entries are read, so a change racing with the read makes
    /// the stamp older than the listing (the watcher then looks again) and never newer.
    let changeTime: UInt64
    /// The folder's inode number; nil when not known (a listing the index lent: it keeps few).
    var inode: UInt64? = nil
    /// What the scan stamps for the folder's symbolic links to anything but a directory
    /// (`LinkStamps`), relative to the folder, each once, with its change time and inode number
    /// (0 when it cannot be read), read with the listing when asked for (a bundle's scan asks);
    /// nil otherwise, and for a listing the index lent (an unchanged bundle's): the scan reads
    /// them when it needs them.
    var linkStamps: [LinkStamp]? = nil

    typealias LinkStamp = (path: String, changeTime: UInt64, inode: UInt64)
}

enum DirectoryReader {
    /// Lists `path` like `_CFIterateDirectory`: skips `.`, `..`, inode 0 and `._*`; `DT_UNKNOWN`
    /// is resolved with `stat`. Entries come back in byte order (readdir order is unspecified;
    /// docs/search-pattern.md, "Directory listings"). Names that are not valid UTF-8 are left
    /// out and counted: CF cannot make a CFString
    /// from them either.
    static func list(_ path: String, skippedNames: inout Int) throws -> [DirectoryEntry] {
        try listing(path, skippedNames: &skippedNames).entries
    }

    /// `list` plus the directory's change time and inode number (`fstat` on the open directory:
    /// no second path lookup), and with `linkStamps` its links' stamps (`LinkStamps`: a bundle's
    /// scan keeps them; two system calls a link, which the tree walker's listings of bundles
    /// found unchanged must not pay).
    static func listing(_ path: String, linkStamps: Bool = false, skippedNames: inout Int) throws -> DirectoryListing {
        try readListing(path, skippedNames: &skippedNames, includeCookies: false, linkStamps: linkStamps)
    }

    /// `listing` of `relative`, resolved from the folder open as `base` (an `O_PATH` handle is
    /// enough); `path` is the same folder's full path, for errors. The kernel then walks only the
    /// components past `base`, not every one from `/` again.
    static func listing(_ relative: String, in base: Int32, path: String, linkStamps: Bool = false,
                        skippedNames: inout Int) throws -> DirectoryListing {
        try readListing(path, relative: relative, in: base, skippedNames: &skippedNames, includeCookies: false,
                        linkStamps: linkStamps)
    }

    /// Every name in `path`, sync cookies included (the watcher looks for them).
    static func listAll(_ path: String, skippedNames: inout Int) throws -> [String] {
        try readListing(path, skippedNames: &skippedNames, includeCookies: true).entries.map(\.name)
    }

    private static func readListing(_ path: String, relative: String? = nil, in base: Int32 = AT_FDCWD,
                                    skippedNames: inout Int, includeCookies: Bool, linkStamps wanted: Bool = false) throws -> DirectoryListing {
        // What `opendir` opens with, minus its `malloc` of a 32 KiB `DIR` per folder: with the
        // build's two threads that lock was contended, the writer freeing what the walker had
        // allocated (docs/performance.md, "Listing folders with `getdents64`").
        let fd = FileSystem.openDescriptor(path, relative: relative, in: base, flags: O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path, errno) }
        defer { close(fd) }
        var st = stat()
        var own: FileSystem.Stamp = (0, 0)
        if fstat(fd, &st) == 0 { own = FileSystem.stamp(st) } else { ShortageLog.noteFailure("stat", path) }
        var entries: [DirectoryEntry] = []
        var linkStamps = LinkStamps.Collected()
        let buffer = ListingBuffer.ofThisThread()
        while true {
            let filled = bundleidx_getdents64(fd, buffer, UInt(ListingBuffer.size))
            if filled == 0 { break }
            if filled < 0 {
                if errno == EINTR { continue }
                // A listing cut short would drop files without a word; `readdir` hid such errors.
                throw failure("getdents64", path, errno)
            }
            var offset = 0
            while offset < filled {
                // struct linux_dirent64: d_ino u64, d_off s64, d_reclen u16, d_type u8, d_name.
                let record = buffer + offset
                let length = Int(record.loadUnaligned(fromByteOffset: 16, as: UInt16.self))
                // A record shorter than its fixed fields and one byte of name would never end
                // the loop; no kernel writes one, but a listing must not hang on it either.
                guard length >= 20, offset + length <= filled else { throw DirectoryReadError(path: path, errno: EIO) }
                offset += length
                guard record.loadUnaligned(as: UInt64.self) != 0 else { continue }
                let type = record.load(fromByteOffset: 18, as: UInt8.self)
                let nameStart = (record + 19).assumingMemoryBound(to: UInt8.self)
                let nameBytes = UnsafeBufferPointer(start: nameStart, count: strnlen(nameStart, length - 19))
                guard let name = String(validating: nameBytes, as: UTF8.self) else { skippedNames += 1; continue }
                if name == "." || name == ".." || name.isEmpty || name.hasPrefix("._") { continue }
                if !includeCookies && name.hasPrefix(SyncCookie.prefix) { continue }
                let entryFlags = flags(of: type, name: name, in: fd)
                entries.append(DirectoryEntry(name: name, flags: entryFlags, rank: UInt32(truncatingIfNeeded: entries.count)))
                if wanted && entryFlags == .symlink { linkStamps.add(of: name, in: fd) }
            }
        }
        sortByName(&entries)
        return DirectoryListing(entries: entries, changeTime: own.changeTime, inode: own.inode,
                                linkStamps: wanted ? linkStamps.stamps : nil)
    }

    /// A folder that cannot be listed (`DirectoryReadError`: the scans take it for unreadable or
    /// gone), or, when `code` is a shortage of descriptors or memory (`FileSystem.isShortage`),
    /// the error the scan stops with: the folder itself may be fine.
    private static func failure(_ call: String, _ path: String, _ code: Int32) -> any Error {
        FileSystem.isShortage(code) ? FileSystem.shortage(call, path, code) : DirectoryReadError(path: path, errno: code)
    }

    /// Sorts `entries` by their names' bytes (`byteOrder`). Each name's first eight bytes, as
    /// one big-endian integer, decide most comparisons; only names that share them are compared
    /// whole. Sorting the entries by `byteOrder` of their names moved strings and compared them
    /// through two closures, retaining both each time: 12 % of a watcher's samples under
    /// `tools/watch-latency`'s storm, 3–4 % of a build's walking thread.
    static func sortByName(_ entries: inout [DirectoryEntry]) {
        guard entries.count > 1 else { return }
        var order: [(prefix: UInt64, index: Int32)] = []
        order.reserveCapacity(entries.count)
        for (i, entry) in entries.enumerated() { order.append((namePrefix(entry.name), Int32(truncatingIfNeeded: i))) }
        let unsorted = entries
        order.sort { a, b in
            a.prefix != b.prefix ? a.prefix < b.prefix : byteOrder(unsorted[Int(a.index)].name, unsorted[Int(b.index)].name)
        }
        for (i, o) in order.enumerated() { entries[i] = unsorted[Int(o.index)] }
    }

    /// The first eight bytes of `name` as a big-endian integer, zeros after a shorter name (a
    /// name holds no zero byte, so a name sorts before the longer ones it starts).
    private static func namePrefix(_ name: String) -> UInt64 {
        name.withUTF8Bytes { bytes in
            var prefix: UInt64 = 0
            for i in 0..<8 { prefix = prefix << 8 | UInt64(i < bytes.count ? bytes[i] : 0) }
            return prefix
        }
    }

    /// The type comes from `d_type`; only links (is the target a directory?) and file systems
    /// that report `DT_UNKNOWN` cost a `fstatat`, relative to the open directory.
    private static func flags(of type: UInt8, name: String, in dirFD: Int32) -> DirectoryEntry.Flags {
        func linkFlags() -> DirectoryEntry.Flags {
            var st = stat()
            guard FileSystem.fstatatNoting(dirFD, name, &st, path: name) else { return .symlink }
            return st.st_mode & S_IFMT == S_IFDIR ? [.symlink, .symlinkToDirectory] : .symlink
        }
        switch Int32(type) {
        case Int32(DT_DIR): return .directory
        case Int32(DT_LNK): return linkFlags()
        case Int32(DT_UNKNOWN):
            var st = stat()
            guard FileSystem.fstatatNoting(dirFD, name, &st, flags: AT_SYMLINK_NOFOLLOW, path: name) else { return [] }
            if st.st_mode & S_IFMT == S_IFDIR { return .directory }
            if st.st_mode & S_IFMT == S_IFLNK { return linkFlags() }
            return []
        default: return []
        }
    }
}

/// The buffer `getdents64` fills, one per thread and kept for the thread's life (32 KiB, the
/// size glibc's `opendir` takes), so listing a folder allocates nothing but its entries.
private enum ListingBuffer {
    static let size = 32 * 1024

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { free($0) }
        precondition(created == 0, "pthread_key_create failed: \(created)")
        return key
    }()

    static func ofThisThread() -> UnsafeMutableRawPointer {
        if let buffer = pthread_getspecific(key) { return buffer }
        guard let buffer = malloc(size) else { fatalError("out of memory for a 32 KiB listing buffer") }
        pthread_setspecific(key, buffer)
        return buffer
    }
}
