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
                guard let events = try? inotify.readEvents(), !events.isEmpty else { continue }
                buffer.withLock { $0 += events }
                var b: UInt8 = 1
                _ = write(wakeWriteFD, &b, 1)
            }
        }
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        done.wait()
    }

    /// Everything read so far, in queue order.
    func take() -> [Inotify.Event] {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(wakeFD, &sink, sink.count) > 0 {}
        return buffer.withLock { events in
            defer { events = [] }
            return events
        }
    }
}
#endif
