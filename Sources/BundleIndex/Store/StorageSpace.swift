import Glibc

/// What a full file system or an address-space limit does to an index, made explicit
/// (docs/reliability.md, "Disk full" and "Address space").
///
/// LMDB writes data pages with `pwrite`; when the file system fills in the middle of a write,
/// the write is short and LMDB reports `EIO` ("short write, filesystem full?"), losing the
/// `ENOSPC` a user needs to see. Its lock file is worse: LMDB sizes it with `ftruncate` (a
/// sparse file) and writes it through a shared mapping, so on a full tmpfs the first store into
/// a page that was never allocated kills the process with SIGBUS.
package enum StorageSpace {
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
        // An existing lock file keeps its size (another program's, or one LMDB sized for other
        // limits); a new one gets the size LMDB would give it.
        let length = st.st_size > 0 ? Int(st.st_size) : lockFileBytes
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

    // MARK: Address space

    /// The map LMDB reserves for an index: 1 TiB of address space when nothing limits it (the
    /// file grows only as pages are used). Under `ulimit -v` a 1 TiB map fails with ENOMEM, so
    /// the map takes half of the address space the limit leaves this process (the other half is
    /// for the heap and threads of a build), and never less than the data file, which a reader
    /// must map whole.
    static func mapSize(indexPath: String) -> Int {
        guard let limit = addressSpaceLimit() else { return LMDBEnvironment.defaultMapSize }
        var st = stat()
        let file = stat(indexPath + "/data.mdb", &st) == 0 ? Int(st.st_size) : 0
        let budget = max(0, limit - virtualBytesInUse()) / 2
        let size = max(min(LMDBEnvironment.defaultMapSize, budget), file)
        return (size + mebibyte - 1) / mebibyte * mebibyte
    }

    /// Mapping the index failed with ENOMEM under an address-space limit: the error names the
    /// limit. Nil without a limit (then ENOMEM is reported as it is).
    static func addressSpaceError(path: String, mapSize: Int) -> BundleIndexError? {
        guard let limit = addressSpaceLimit() else { return nil }
        return .storage(path: path, code: ENOMEM, message: String(cString: strerror(ENOMEM))
                        + ": mapping the index takes \(mapSize / mebibyte) MiB of address space, and the "
                        + "address-space limit (ulimit -v) of \(limit / mebibyte) MiB leaves "
                        + "\(max(0, limit - virtualBytesInUse()) / mebibyte) MiB; raise the limit")
    }

    /// The data outgrew the map (MDB_MAP_FULL for a writer, MDB_MAP_RESIZED for a reader whose
    /// map is smaller than the index has become). Under an address-space limit that is the
    /// limit's doing, and the error says so.
    static func mapOutgrownError(_ e: LMDBError, path: String) -> BundleIndexError {
        guard let limit = addressSpaceLimit() else { return .storage(path: path, code: e.code, message: e.message) }
        return .storage(path: path, code: e.code, message: e.message + ": the index outgrew the map that the "
                        + "address-space limit (ulimit -v) of \(limit / mebibyte) MiB allows; raise the limit")
    }

    // MARK: Growing the map

    /// The most address space a map may take when nothing limits it (x86-64 and arm64 give a
    /// process 128 TiB).
    static let largestMap = 1 << 46

    /// The map to grow to after a write found it full (MDB_MAP_FULL): twice the current one,
    /// and under an address-space limit no more than half of what the limit leaves besides
    /// (the write was aborted, so growing unmaps the old map before mapping the new one). When
    /// that adds less than an eighth, the error says which limit stops it.
    static func grownMapSize(path: String, current: Int) throws -> Int {
        try grownMapSize(path: path, current: current, limit: addressSpaceLimit(), inUse: virtualBytesInUse())
    }

    package static func grownMapSize(path: String, current: Int, limit: Int?, inUse: Int) throws -> Int {
        var target = min(current * 2, max(current, largestMap))
        if let limit { target = min(target, current + max(0, limit - inUse) / 2) }
        target = target / pageBytes * pageBytes
        // A sliver more would only make the build run again to fail again a little later.
        guard target >= current + max(current / 8, pageBytes) else {
            let why = limit.map { "the address-space limit (ulimit -v) of \(sizeText($0)) leaves "
                                  + "\(sizeText(max(0, $0 - inUse))), not enough to grow it; raise the limit" }
                ?? "that is the largest map bundleidx makes"
            throw BundleIndexError.storage(path: path, code: LMDBError.mapFull.code, message: "the index no longer fits in "
                                           + "its map of \(sizeText(current)) (MDB_MAP_FULL), and \(why)")
        }
        return target
    }

    /// Maps are sized in whole pages.
    private static let pageBytes = 4096

    /// "3 MiB", or "256 KiB" for less than a mebibyte.
    static func sizeText(_ bytes: Int) -> String {
        bytes >= mebibyte ? "\(bytes / mebibyte) MiB" : "\(bytes / 1024) KiB"
    }

    /// Whether `bytes` more of address space can be mapped now: growing a map unmaps it before
    /// mapping it again, and a map that then fails leaves LMDB with none, so the room is tried
    /// first with an anonymous reservation (nothing is allocated).
    static func canReserve(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        let p = mmap(nil, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard p != MAP_FAILED else { return false }
        munmap(p, bytes)
        return true
    }

    /// Growing the map to `target` failed (`errno`-style `code`); the error names the sizes and,
    /// under an address-space limit, the limit.
    package static func growthError(path: String, current: Int, target: Int, code: Int32) -> BundleIndexError {
        var message = "growing the index map from \(sizeText(current)) to \(sizeText(target)) failed: "
            + String(cString: strerror(code))
        if let limit = addressSpaceLimit() {
            message += "; the address-space limit (ulimit -v) of \(sizeText(limit)) leaves "
                + "\(sizeText(max(0, limit - virtualBytesInUse()))); raise the limit"
        }
        return .storage(path: path, code: code, message: message)
    }

    /// `RLIMIT_AS` in bytes, nil when unlimited.
    static func addressSpaceLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return nil
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// The process's virtual size (`/proc/self/statm`, first field, in pages).
    static func virtualBytesInUse() -> Int {
        let fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0, let pages = Int(String(decoding: buffer[..<n].prefix { $0 != 0x20 }, as: UTF8.self)) else { return 0 }
        return pages * Int(getpagesize())
    }

    private static let mebibyte = 1 << 20
}
