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
        let path = root + "/" + SyncCookie.prefix + "\(getpid())-\(syncCounter)-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw BundleIndexError.systemCall("open \(path)") }
        close(fd)
        let deadline = monotonicSeconds() + timeout
        while access(path, F_OK) == 0 {
            if monotonicSeconds() > deadline {
                unlink(path)
                throw BundleIndexError.syncTimedOut(root: root, seconds: timeout)
            }
            usleep(500)
        }
    }
}
#endif
