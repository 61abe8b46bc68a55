#if canImport(Glibc)
import Glibc

/// Read-your-writes for scripts and tests (Watchman's cookie idea): a file dropped into a
/// watched root travels through the same inotify queue as every change made before it; the
/// watcher deletes it only after the batch that contains it has committed. When the cookie is
/// gone, every earlier change is in the index.
extension IndexWatcher {
    nonisolated(unsafe) private static var syncCounter = 0

    /// Blocks until a watcher of `root` has applied everything that happened in it before the
    /// call, so that the next query sees it. Throws `BundleIndexError.syncTimedOut` when no
    /// watcher did within `timeout` seconds (none running, or one stuck).
    ///
    /// ```swift
    /// try Data().write(to: URL(fileURLWithPath: "/apps/Phone.app/new.png"))
    /// try IndexWatcher.sync(root: "/apps")   // a running `bundleidx watch /apps` applied it
    /// ```
    public static func sync(root: String, timeout: Double = 10) throws {
        guard timeout.isFinite && timeout > 0 else {
            throw BundleIndexError.badInput(path: root, reason: "a sync timeout must be a positive number of seconds, not \(timeout)")
        }
        syncCounter += 1
        let name = SyncCookie.prefix + "\(getpid())-\(syncCounter)-\(UInt32.random(in: 0...UInt32.max))"
        let path = root + "/" + name
        // The cookie is made and looked for in the folder the root names now, held open: a root
        // given as a link made to lead elsewhere meanwhile sent the wait to the new folder, where
        // no cookie was, and the sync returned at once, whatever the watcher had done.
        let folder = open(root, FileSystem.openPath | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw BundleIndexError.systemCall("open \(root)") }
        defer { close(folder) }
        let fd = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BundleIndexError.systemCall("open \(path)") }
        close(fd)
        let deadline = monotonicSeconds() + timeout
        while faccessat(folder, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 {
            if monotonicSeconds() > deadline {
                unlinkat(folder, name, 0)
                throw BundleIndexError.syncTimedOut(root: root, seconds: timeout)
            }
            usleep(500)
        }
    }
}
#endif
