import Glibc

/// What a full file system does to an index, made explicit (docs/reliability.md, "Disk full").
///
/// LMDB writes data pages with `pwrite`; when the file system fills in the middle of a write,
/// the write is short and LMDB reports `EIO` ("short write, filesystem full?"), losing the
/// `ENOSPC` a user needs to see. Its lock file is worse: LMDB sizes it with `ftruncate` (a
/// sparse file) and writes it through a shared mapping, so on a full tmpfs the first store into
/// a page that was never allocated kills the process with SIGBUS.
enum StorageSpace {
    /// LMDB 0.9's lock file for 512 readers: a 192-byte header and 511 more 64-byte reader
    /// slots (`(maxreaders - 1) * sizeof(MDB_reader) + sizeof(MDB_txninfo)`). LMDB keeps a lock
    /// file of at least this size as it is, so allocating it ahead changes nothing else.
    static let lockFileBytes = 32_896

    /// Below this much free space, an `EIO` from a write is taken for a full file system.
    static let nearlyFullBytes = 1 << 20

    /// Allocates every block of `lock.mdb` (creating it when missing) before LMDB maps it, so
    /// a full file system is an `ENOSPC` error here instead of a SIGBUS inside LMDB. The caller
    /// has checked that an existing `lock.mdb` is a regular file, not a link.
    static func reserveLockFile(indexPath: String) throws {
        let path = indexPath + "/lock.mdb"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
        // A reader-only user cannot open it for writing; LMDB's own open will say so.
        guard fd >= 0 else { return }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return }
        let length = max(Int(st.st_size), lockFileBytes)
        // posix_fallocate returns the error number instead of setting errno.
        let rc = posix_fallocate(fd, 0, off_t(length))
        if rc == ENOSPC || rc == EDQUOT {
            if st.st_size == 0 { unlink(path) }   // a lock file this call created, left empty
            throw BundleIndexError.storage(path: indexPath, code: rc, message: String(cString: strerror(rc))
                                           + freeSpaceNote(indexPath))
        }
    }

    /// The error for an `EIO` met writing the index at `path` when its file system is (nearly)
    /// full: LMDB's short write; nil when there is space, so the `EIO` is reported as it is.
    static func diskFullError(path: String) -> BundleIndexError? {
        guard let free = freeBytes(path), free < nearlyFullBytes else { return nil }
        return .storage(path: path, code: ENOSPC, message: String(cString: strerror(ENOSPC)) + freeSpaceNote(path))
    }

    /// Bytes an unprivileged writer may still use on the file system holding `path` (`statvfs`).
    static func freeBytes(_ path: String) -> Int? {
        var vfs = statvfs()
        guard statvfs(path, &vfs) == 0 else { return nil }
        return Int(vfs.f_bavail) * Int(vfs.f_frsize)
    }

    private static func freeSpaceNote(_ path: String) -> String {
        guard let free = freeBytes(path) else { return "" }
        return "; \(free / 1024) KiB free on the file system of the index"
    }
}
