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
        let deadline = monotonicSeconds() + timeout
        var cookie = try Cookie(in: root)
        var polls = 0
        while cookie.isThere {
            if monotonicSeconds() > deadline {
                cookie.remove()
                throw BundleIndexError.syncTimedOut(root: root, seconds: timeout)
            }
            polls += 1
            // The root now names another folder (a link made to lead elsewhere): the watcher
            // deletes cookies by the path its events name, which no longer leads to this one.
            // A cookie in the new folder comes after every event of the old one in the
            // watcher's queue: once it is gone, so are they.
            if polls % 64 == 0, !cookie.folderIsNamed(root) {
                cookie.remove()
                cookie = try Cookie(in: root)
            }
            usleep(500)
        }
        close(cookie.folder)
    }

    /// A sync cookie, made, looked for and removed in the folder its root named when it was
    /// made, held open: looked for by path, a root given as a link made to lead elsewhere
    /// meanwhile sent the wait to the new folder, where no cookie was, and the sync returned at
    /// once, whatever the watcher had done.
    private struct Cookie {
        let folder: Int32
        let name: String

        init(in root: String) throws {
            syncCounter += 1
            name = SyncCookie.prefix + "\(getpid())-\(syncCounter)-\(UInt32.random(in: 0...UInt32.max))"
            folder = open(root, FileSystem.openPath | O_DIRECTORY | O_CLOEXEC)
            guard folder >= 0 else { throw BundleIndexError.systemCall("open \(root)") }
            let fd = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                let error = BundleIndexError.systemCall("open \(root)/\(name)")
                close(folder)
                throw error
            }
            close(fd)
        }

        var isThere: Bool { faccessat(folder, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 }

        /// Whether `root` still names the folder the cookie lies in.
        func folderIsNamed(_ root: String) -> Bool {
            var held = stat(), named = stat()
            return fstat(folder, &held) == 0 && stat(root, &named) == 0 && held.st_dev == named.st_dev && held.st_ino == named.st_ino
        }

        /// Removes the cookie (if the watcher has not) and lets go of its folder.
        func remove() {
            unlinkat(folder, name, 0)
            close(folder)
        }
    }
}
#endif
