import Glibc

/// Why a directory could not be listed.
struct DirectoryReadError: Error, CustomStringConvertible {
    let path: String
    let errno: Int32
    var description: String { "\(path): \(String(cString: strerror(errno)))" }
    /// The directory went away (or became a file) while the scan ran: it is not unreadable,
    /// it is not there.
    var isGone: Bool { errno == ENOENT || errno == ENOTDIR }
}

/// A directory's entries and its modification time, read through one open directory.
struct DirectoryListing {
    let entries: [DirectoryEntry]
    /// Nanoseconds; taken before the entries are read, so a change racing with the read makes
    /// the stamp older than the listing (the watcher then looks again) and never newer.
    let modificationTime: UInt64
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

    /// `list` plus the directory's modification time (`fstat` on the open directory: no second
    /// path lookup).
    static func listing(_ path: String, skippedNames: inout Int) throws -> DirectoryListing {
        try readListing(path, skippedNames: &skippedNames, includeCookies: false)
    }

    /// Every name in `path`, sync cookies included (the watcher looks for them).
    static func listAll(_ path: String, skippedNames: inout Int) throws -> [String] {
        try readListing(path, skippedNames: &skippedNames, includeCookies: true).entries.map(\.name)
    }

    private static func readListing(_ path: String, skippedNames: inout Int, includeCookies: Bool) throws -> DirectoryListing {
        guard let dir = opendir(path) else { throw DirectoryReadError(path: path, errno: errno) }
        defer { closedir(dir) }
        let fd = dirfd(dir)
        var st = stat()
        let mtime = fstat(fd, &st) == 0 ? FileSystem.nanoseconds(st.st_mtim) : 0
        var entries: [DirectoryEntry] = []
        while let ent = readdir(dir) {
            if ent.pointee.d_ino == 0 { continue }
            let name: String? = withUnsafeBytes(of: &ent.pointee.d_name) { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                let len = bytes.firstIndex(of: 0) ?? bytes.count
                return String(validating: UnsafeBufferPointer(rebasing: bytes[..<len]), as: UTF8.self)
            }
            guard let name else { skippedNames += 1; continue }
            if name == "." || name == ".." || name.isEmpty || name.hasPrefix("._") { continue }
            if !includeCookies && name.hasPrefix(SyncCookie.prefix) { continue }
            entries.append(DirectoryEntry(name: name, flags: flags(of: ent.pointee.d_type, name: name, in: fd),
                                          rank: UInt32(truncatingIfNeeded: entries.count)))
        }
        entries.sort { byteOrder($0.name, $1.name) }
        return DirectoryListing(entries: entries, modificationTime: mtime)
    }

    /// The type comes from `d_type`; only links (is the target a directory?) and file systems
    /// that report `DT_UNKNOWN` cost a `fstatat`, relative to the open directory.
    private static func flags(of type: UInt8, name: String, in dirFD: Int32) -> DirectoryEntry.Flags {
        func linkFlags() -> DirectoryEntry.Flags {
            var st = stat()
            if fstatat(dirFD, name, &st, 0) == 0, st.st_mode & S_IFMT == S_IFDIR { return [.symlink, .symlinkToDirectory] }
            return .symlink
        }
        switch Int32(type) {
        case Int32(DT_DIR): return .directory
        case Int32(DT_LNK): return linkFlags()
        case Int32(DT_UNKNOWN):
            var st = stat()
            guard fstatat(dirFD, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return [] }
            if st.st_mode & S_IFMT == S_IFDIR { return .directory }
            if st.st_mode & S_IFMT == S_IFLNK { return linkFlags() }
            return []
        default: return []
        }
    }
}
