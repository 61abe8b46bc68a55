#if canImport(Glibc)
import Glibc

/// Read-your-writes for scripts and tests (Watchman's cookie idea): a file dropped into a
/// watched root travels through the same inotify queue as every change made before it, and the
/// watcher answers it only once the batch that contains it has committed (`ClaimedCookie`).
/// When it is answered, every earlier change is in the index.
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
        _ = try sync(root: root, timeout: timeout, whileWatched: nil)
    }

    /// How a `sync(root:timeout:whileWatched:)` ended, but by a timeout with a watcher.
    package enum SyncOutcome: Equatable {
        /// A watcher applied everything before the call.
        case answered
        /// The watcher `watched` saw keeping the index stopped before it answered.
        case watcherStopped
        /// The time ran out and `watched` never saw a watcher.
        case noWatcher
    }

    /// `sync(root:timeout:)` that also asks `watched` whether a watcher keeps the index (at the
    /// start and about every 40 ms): once one was seen, its end ends the wait; when none was
    /// seen by the deadline, that is the outcome instead of a timeout. A watcher that has not
    /// taken its lock yet (starting) is waited for, as without `watched`.
    package static func sync(root: String, timeout: Double, whileWatched watched: (() -> Bool)?) throws -> SyncOutcome {
        guard timeout.isFinite && timeout > 0 else {
            throw BundleIndexError.badInput(path: root, reason: "a sync timeout must be a positive number of seconds, not \(timeout)")
        }
        let deadline = monotonicSeconds() + timeout
        var cookie = try Cookie(in: root)
        var polls = 0
        var seen = watched?() ?? false
        while !cookie.isAnswered {
            if monotonicSeconds() > deadline {
                cookie.remove()
                if watched != nil && !seen { return .noWatcher }
                throw BundleIndexError.syncTimedOut(root: root, seconds: timeout)
            }
            polls += 1
            if polls % 64 == 0, let watched {
                let now = watched()
                // Answered just before it stopped: a success.
                if seen && !now && !cookie.isAnswered {
                    cookie.remove()
                    return .watcherStopped
                }
                seen = seen || now
            }
            // The root now names another folder (a link made to lead elsewhere): the watcher
            // takes cookies by the path its events name, which no longer leads to this one.
            // A cookie in the new folder comes after every event of the old one in the
            // watcher's queue: once it is answered, so are they. (One the watcher has taken
            // already is waited for.)
            if polls % 64 == 0, !cookie.isTaken, !cookie.folderIsNamed(root) {
                cookie.remove()
                cookie = try Cookie(in: root)
            }
            usleep(500)
        }
        // Gone already, unless the watcher could write to the cookie but not remove it.
        cookie.remove()
        return .answered
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
            name = SyncCookie.answeredByBytes + "\(getpid())-\(syncCounter)-\(UInt32.random(in: 0...UInt32.max))"
            folder = open(root, FileSystem.openPath | O_DIRECTORY | O_CLOEXEC)
            guard folder >= 0 else {
                // A root that is no directory is bad input (exit 4), as for `build` and `watch`.
                let code = errno, failure = BundleIndexError.systemCall("open \(root)")
                if code == ENOENT || code == ENOTDIR {
                    throw BundleIndexError.badInput(path: root, reason: code == ENOENT ? "no such directory" : "not a directory")
                }
                throw failure
            }
            // 0644 (less with the umask): only its owner and root can write the answer into it,
            // and no other user can give it a second name (`fs.protected_hardlinks`). A watcher
            // run by another user answers by removing it (`ClaimedCookie`).
            file = openat(folder, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard file >= 0 else {
                let error = BundleIndexError.systemCall("open \(root)/\(name)")
                Glibc.close(folder)
                throw error
            }
        }

        private var status: stat? {
            var st = stat()
            return fstat(file, &st) == 0 ? st : nil
        }

        /// Answered: the watcher wrote its second byte (its batch committed), or removed the
        /// cookie without writing to it (a watcher that cannot write to it removes it only
        /// after its batch has committed).
        var isAnswered: Bool {
            guard let st = status else { return false }
            return st.st_size >= 2 || (st.st_size == 0 && st.st_nlink == 0)
        }

        /// Taken by a watcher (its first byte is written) and not answered yet.
        var isTaken: Bool { status.map { $0.st_size == 1 } ?? false }

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

/// A sync cookie the watcher answers (docs/watching.md, "Read your writes").
///
/// Taken: a fresh cookie the watcher can write to gets one byte ("taken") and is removed from
/// its folder before the batch that covers it reads anything, so the batch records the folder's
/// change time after the removal; once the batch has committed, a second byte answers the
/// waiting `sync`. Removed after the commit, as before, the removal changed the folder's time
/// after the batch had recorded it: a root that is itself a bundle, or a folder a bundle's
/// followed link leads to, kept a stale stamp, and `verify` found it after every sync.
///
/// Left: a cookie the watcher cannot write to (a `sync` run by another user, whose cookie is
/// 0644), one not named for bytes (`SyncCookie.answeredByBytes`: a sync of before, which waits
/// for its cookie to go, took the first byte for the answer), one past the batch's share
/// (`takenPerBatch`), or one that is no fresh cookie (a link, a folder, a file with other names
/// or content, put there under a cookie's name) is never written to. An empty regular file, what
/// a sync makes, is removed after the commit; anything else is left in place (a review found a
/// user's file named like a cookie, a link's target, deleted). The bundles that record its
/// folder's time are read again in the batch that sees it and, once it is removed, in the next.
struct ClaimedCookie {
    /// The taken cookie, open for the answer; -1 for a left one.
    private let file: Int32
    /// Where the cookie was (a left one is removed there once the batch has committed).
    let path: String
    /// Whether the cookie was removed before the batch read anything (a taken one, unless its
    /// folder did not let the watcher remove it).
    let removedFirst: Bool

    /// At most this many cookies are taken per batch: an eighth of the soft limit on open files,
    /// between 16 and 1 024 (each holds a descriptor until the commit; 1 100 at once, from a
    /// thousand syncs or left by killed ones, took a watcher with 1 024 descriptors to `EMFILE`
    /// in its scans). The others are left: had they waited for later batches, 16 at a time,
    /// 10 000 files named like cookies kept a sync waiting 10 s and cost 462 commits; left, a
    /// root that is a bundle keeps a stale stamp until the next batch, which 40 syncs at once
    /// showed while the share was 16.
    static let takenPerBatch: Int = OpenFileLimit.soft.map { Int(min(1_024, max(16, $0 / 8))) } ?? 16

    /// Holds a descriptor until `finish`.
    var isTaken: Bool { file >= 0 }

    /// The cookie at `path`, taken when `take` and it can be; nil when there is none.
    init?(_ path: String, take: Bool) {
        var named = stat()
        guard lstat(path, &named) == 0 else { return nil }
        self.path = path
        let takable = take && (named.st_mode & S_IFMT) == S_IFREG
            && PathText.lastComponent(path).hasPrefix(SyncCookie.answeredByBytes)
        let fd = takable ? open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1
        var st = stat()
        var mark = UInt8(ascii: "t")
        guard fd >= 0, fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_nlink == 1, st.st_size == 0,
              pwrite(fd, &mark, 1, 0) == 1 else {
            if fd >= 0 { close(fd) }
            (file, removedFirst) = (-1, false)
            return
        }
        // Taken; a cookie that cannot be removed now (its folder does not let the watcher) is
        // still answered by its second byte, and removed, if it can be, after the commit.
        (file, removedFirst) = (fd, unlink(path) == 0)
    }

    /// Whether the entry at `path` is what a sync makes, an empty regular file (not a link).
    private static func isEmptyFile(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG && st.st_size == 0
    }

    /// Answers the waiting sync (the batch that covered the cookie committed), or lets go of the
    /// cookie unanswered (it failed: the sync times out). True when it removed the cookie now (a
    /// folder named like one stays, and is never indexed).
    @discardableResult
    func finish(answering: Bool) -> Bool {
        var removedNow = false
        if answering {
            if file >= 0 {
                var byte = UInt8(ascii: "a")
                _ = pwrite(file, &byte, 1, 1)
            }
            // A left entry only while it is an empty file (a taken one was emptied by nobody
            // else: it holds the watcher's bytes).
            if !removedFirst && (file >= 0 || Self.isEmptyFile(path)) { removedNow = unlink(path) == 0 }
        }
        if file >= 0 { close(file) }
        return removedNow
    }
}
#endif
