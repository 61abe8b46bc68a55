#if canImport(Glibc)
import Glibc
import Foundation
import Synchronization

/// Reads the inotify queue on a thread of its own, into memory, so that the kernel's queue
/// (fs.inotify.max_queued_events) does not overflow while the watcher is busy applying a
/// batch. Without it a storm that outlasts one rescan overflows again during the rescan that
/// the overflow caused. The watcher is woken through a pipe.
final class EventPump: @unchecked Sendable {
    private let inotify: Inotify
    private let buffer = Mutex<[Inotify.Event]>([])
    /// Why the queue could no longer be read; `take` throws it.
    private let failure = Mutex<(any Error)?>(nil)
    private let stopped = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)
    /// Readable when events are waiting in memory.
    let wakeFD: Int32
    private let wakeWriteFD: Int32
    /// Test seam: while this file exists the queue is not read (so the kernel's overflows).
    let pauseFile: String?

    init(inotify: Inotify, pauseFile: String?) {
        self.inotify = inotify
        self.pauseFile = pauseFile
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        wakeFD = fds[0]
        wakeWriteFD = fds[1]
    }

    deinit {
        close(wakeFD)
        close(wakeWriteFD)
    }

    func start() {
        let thread = Thread { [self] in
            defer { done.signal() }
            while !stopped.load(ordering: .relaxed) {
                if let pauseFile, access(pauseFile, F_OK) == 0 {
                    usleep(20_000)
                    continue
                }
                var fd = pollfd(fd: inotify.fd, events: Int16(POLLIN), revents: 0)
                guard poll(&fd, 1, 100) > 0 else { continue }
                var b: UInt8 = 1
                let events: [Inotify.Event]
                do {
                    events = try inotify.readEvents()
                } catch {
                    // Events were lost with the read: the watcher stops with the error (its next
                    // start catches up), where it went on without them and the index went stale.
                    failure.withLock { $0 = error }
                    _ = write(wakeWriteFD, &b, 1)
                    return
                }
                guard !events.isEmpty else { continue }
                buffer.withLock { $0 += events }
                _ = write(wakeWriteFD, &b, 1)
            }
        }
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        done.wait()
    }

    /// Everything read so far, in queue order; throws once the queue could not be read.
    func take() throws -> [Inotify.Event] {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(wakeFD, &sink, sink.count) > 0 {}
        if let error = failure.withLock({ $0 }) { throw error }
        return buffer.withLock { events in
            defer { events = [] }
            return events
        }
    }
}
#endif
