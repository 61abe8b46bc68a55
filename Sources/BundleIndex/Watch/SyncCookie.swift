#if canImport(Glibc)
import Glibc

/// Read-your-writes for scripts and tests (Watchman's cookie idea): a file dropped into a
/// watched root travels through the same inotify queue as every change made before it. The
/// watcher takes it out of its folder before the batch that contains it reads anything, and
/// writes a byte to it once that batch has committed (`ClaimedCookie`). When the byte is there,
/// every earlier change is in the index.
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
        while !cookie.isAnswered {
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
        cookie.close()
    }

    /// A sync cookie, made, looked for and removed in the folder its root named when it was
    /// made, held open: looked for by path, a root given as a link made to lead elsewhere
    /// meanwhile sent the wait to the new folder, where no cookie was, and the sync returned at
    /// once, whatever the watcher had done. The file is held open too, for the watcher's answer.
    private struct Cookie {
        let folder: Int32
        let file: Int32
        let name: String

        init(in root: String) throws {
            syncCounter += 1
            name = SyncCookie.prefix + "\(getpid())-\(syncCounter)-\(UInt32.random(in: 0...UInt32.max))"
            folder = open(root, FileSystem.openPath | O_DIRECTORY | O_CLOEXEC)
            guard folder >= 0 else { throw BundleIndexError.systemCall("open \(root)") }
            file = openat(folder, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            guard file >= 0 else {
                let error = BundleIndexError.systemCall("open \(root)/\(name)")
                Glibc.close(folder)
                throw error
            }
            // Writable by a watcher run by another user, whatever the umask: the answer is a
            // write. (A watcher that cannot write to it removes it unanswered.)
            fchmod(file, 0o666)
        }

        /// Whether the watcher has written its answer: the batch that covered the cookie has
        /// committed.
        var isAnswered: Bool {
            var st = stat()
            return fstat(file, &st) == 0 && st.st_size > 0
        }

        /// Whether `root` still names the folder the cookie lies in.
        func folderIsNamed(_ root: String) -> Bool {
            var held = stat(), named = stat()
            return fstat(folder, &held) == 0 && stat(root, &named) == 0 && held.st_dev == named.st_dev && held.st_ino == named.st_ino
        }

        /// Removes the cookie (if the watcher has not) and lets go of it and its folder.
        func remove() {
            unlinkat(folder, name, 0)
            close()
        }

        func close() {
            Glibc.close(file)
            Glibc.close(folder)
        }
    }
}

/// A sync cookie the watcher has taken out of its folder: removed before the batch that covers
/// it reads anything, and answered with one byte once that batch has committed. Removed after the
/// commit, as before, it changed its folder's change time after the batch had recorded it: a
/// root that is itself a bundle, or a folder a bundle's followed link leads to, kept a stale
/// stamp, and `verify` found it after every sync. Removed first, the batch reads the folder as it
/// stays.
///
/// Only a file with no name left is written to: a link or a second name of some other file put
/// there under a cookie's name is removed, never written through.
struct ClaimedCookie {
    /// The cookie, open for the answer; -1 when there is nothing to answer.
    private let file: Int32

    /// Takes the cookie at `path` out of its folder; nil when there was none.
    init?(claiming path: String) {
        var named = stat()
        guard lstat(path, &named) == 0 else { return nil }
        let fd = (named.st_mode & S_IFMT) == S_IFREG ? open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1
        guard unlink(path) == 0 else {
            if fd >= 0 { close(fd) }
            return nil
        }
        var st = stat()
        if fd >= 0, fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_nlink == 0, st.st_size == 0 {
            file = fd
        } else {
            if fd >= 0 { close(fd) }
            file = -1
        }
    }

    /// Answers the waiting sync (the batch that covered the cookie committed), or lets go of the
    /// cookie unanswered (it failed: the sync times out).
    func finish(answering: Bool) {
        guard file >= 0 else { return }
        if answering {
            var byte = UInt8(ascii: "1")
            _ = write(file, &byte, 1)
        }
        close(file)
    }
}
#endif
