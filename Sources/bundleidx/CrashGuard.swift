import Glibc

/// LMDB trusts the pages it maps: a data file whose inside was overwritten (not truncated, not
/// foreign — those are detected when the index opens) can make it read through a garbage
/// pointer. The CLI turns that SIGBUS/SIGSEGV into the documented index error instead of a
/// crash report. Only async-signal-safe calls run in the handler (write, _exit).
enum CrashGuard {
    nonisolated(unsafe) private static var message: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var messageLength = 0

    static func install(indexPath: String) {
        let text = "bundleidx: error: the index at \(indexPath) is damaged (reading it failed); rebuild it with bundleidx build\n"
        let bytes = Array(text.utf8CString)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        buffer.initialize(from: bytes, count: bytes.count)
        message = buffer
        messageLength = bytes.count - 1
        for sig in [SIGBUS, SIGSEGV] {
            signal(sig) { _ in
                if let m = CrashGuard.message { _ = write(2, m, CrashGuard.messageLength) }
                _exit(3)
            }
        }
    }
}
