import Glibc

/// What an index folder holds besides the LMDB environment, what must be true of its files
/// before LMDB opens them, and when a build may replace what it holds: the files of an index,
/// the mark a fault inside LMDB leaves, a watcher's lock (docs/reliability.md: "Crash safety"
/// for the mark, the section on rebuilding an unusable index for the rest).
extension IndexStore {
    /// Whether `error`, met opening the index at `path` for writing, is about an index of ours
    /// that cannot be used (another format version, damage, an empty or garbled data file) in a
    /// folder that holds nothing but index files: then a build may replace it. A foreign LMDB
    /// environment, a folder with other files or a file in place of the folder are never replaced.
    package static func isReplaceable(_ error: BundleIndexError, path: String) -> Bool {
        switch error {
        case .unsupportedVersion, .corrupt:
            break
        case .notAnIndex(_, let reason) where unusableDataReasons.contains(reason):
            break
        default:
            return false
        }
        return holdsOnlyIndexFiles(path)
    }

    /// Whether the folder at `path` holds nothing but the files of an index (none at all
    /// included); false when it cannot be listed.
    static func holdsOnlyIndexFiles(_ path: String) -> Bool {
        FileSystem.names(in: path)?.allSatisfy(indexFiles.contains) ?? false
    }

    /// What LMDB would otherwise open blindly: it follows symbolic links (a `lock.mdb` linked
    /// to another file has that file overwritten by any reader), blocks on a FIFO and maps any
    /// file. An index folder writable by every user is refused too: anyone could swap its files
    /// between this check and LMDB's open.
    static func checkFiles(_ path: String) throws {
        var st = stat()
        if stat(path, &st) == 0 && st.st_mode & S_IWOTH != 0 {
            throw BundleIndexError.insecure(path: path, reason: "the folder is writable by every user (chmod o-w \(path))")
        }
        // Left by a process whose read faulted inside LMDB (`MappedReadGuard`): LMDB may crash
        // on that page again, wherever its pointers lead, so the index is not opened; a build
        // replaces it.
        if lstat(path + "/" + damageMark, &st) == 0 {
            throw BundleIndexError.corrupt(path: path, reason: "a read of it faulted inside LMDB (a damaged page)")
        }
        for name in ["data.mdb", "lock.mdb"] {
            guard lstat(path + "/" + name, &st) == 0 else { continue }
            switch st.st_mode & S_IFMT {
            case S_IFREG:
                if name == "data.mdb" && st.st_size == 0 {
                    throw BundleIndexError.notAnIndex(path: path, reason: "data.mdb is empty")
                }
            case S_IFLNK:
                throw BundleIndexError.insecure(path: path, reason: "\(name) is a symbolic link (an index folder holds "
                                                + "its own files; remove the link)")
            default:
                throw BundleIndexError.notAnIndex(path: path, reason: "\(name) is not a regular file")
            }
        }
    }

    /// Removes an unusable index's files (see `isReplaceable`), leaving the folder.
    package static func removeIndexFiles(path: String) throws {
        // The mark of damage last: a build stopped in between finds the index still marked.
        for name in ["data.mdb", "lock.mdb", damageMark] where unlink(path + "/" + name) != 0 && errno != ENOENT {
            throw BundleIndexError.systemCall("unlink \(path)/\(name)")
        }
    }

    /// The files an index folder holds.
    static let indexFiles: Set<String> = ["data.mdb", "lock.mdb", "watch.lock", damageMark]

    /// The empty file a process whose read of the index faulted inside LMDB leaves in its folder
    /// (`MappedReadGuard.install(…damageMark:)`): the index is then damaged for every command
    /// and replaced by the next build.
    package static let damageMark = "damaged"
    /// `notAnIndex` reasons that mean "an index file that is no longer usable".
    static let unusableDataReasons: Set<String> = ["data.mdb is empty", "data.mdb is not an LMDB database",
                                                   "data.mdb was written by an incompatible LMDB"]

    /// True while a `bundleidx watch` keeps this index (it holds `watch.lock`; IndexWatcher).
    package func hasLiveWatcher() -> Bool { Self.hasLiveWatcher(path: path) }

    /// `hasLiveWatcher()` of the index folder at `path`, asked without opening the index (a
    /// build must not replace an index a watcher keeps, damaged or not).
    package static func hasLiveWatcher(path: String) -> Bool { watcherKeeps(path: path) == true }

    /// Whether a `bundleidx watch` keeps the index folder at `path`: nil when this process
    /// cannot tell (`watch.lock` is there but may not be opened by it: a watcher of another user
    /// with a restrictive umask).
    package static func watcherKeeps(path: String) -> Bool? {
        let fd = open(path + "/watch.lock", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return errno == ENOENT ? false : nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 { return false }
        return errno == EWOULDBLOCK ? true : nil
    }
}
