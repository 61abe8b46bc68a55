#if canImport(Glibc)
import Glibc

/// Read-your-writes for scripts and tests (Watchman's cookie idea): a file dropped into a
/// watched root travels through the same inotify queue as every change made before it; the
/// watcher deletes it only after the batch that contains it has committed. When the cookie is
/// gone, every earlier change is in the index.
public enum WatchSync {
    public struct TimedOut: Error, CustomStringConvertible {
        public let root: String
        public let seconds: Double
        public var description: String {
            "no watcher applied the sync cookie in \(root) within \(seconds) s (is bundleidx watch running on it?)"
        }
    }

    nonisolated(unsafe) private static var counter = 0

    /// Blocks until a watcher of `root` has applied everything that happened before the call.
    public static func sync(root: String, timeout: Double = 10) throws {
        counter += 1
        let path = root + "/" + SyncCookie.prefix + "\(getpid())-\(counter)-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemCallError(call: "open \(path)", errno: errno) }
        close(fd)
        let deadline = IndexBuilder.monotonicSeconds() + timeout
        while access(path, F_OK) == 0 {
            if IndexBuilder.monotonicSeconds() > deadline {
                unlink(path)
                throw TimedOut(root: root, seconds: timeout)
            }
            usleep(500)
        }
    }
}
#endif
