#if DEBUG
import Synchronization

/// Test seam, compiled only in debug builds: the scans' calls on a registered path, or on
/// anything below a registered folder, fail with the registered `errno`, as they would for a
/// process out of descriptors or kernel memory. `.open` fails the opens of what a scan reads
/// (`FileSystem.openDescriptor`); `.status` fails the questions asked by path that answer
/// without an error (`FileSystem.isDirectory`, `stamp`, `realPath`…). Tests run side by side, so
/// each registers paths of its own temporary folder only.
package enum FileFaults {
    package enum Call: Sendable { case open, status }

    private struct Fault {
        let path: String
        let code: Int32
        let call: Call
        /// How many more calls fail.
        var remaining: Int
    }

    private static let failing = Mutex<[Fault]>([])

    /// Runs `body` with `call`s at or below `path` failing with `code`: every one, or the
    /// first `times`.
    package static func failing<T>(at path: String, with code: Int32, call: Call = .open, times: Int = .max,
                                   _ body: () throws -> T) rethrows -> T {
        failing.withLock { $0.append(Fault(path: path, code: code, call: call, remaining: times)) }
        defer { failing.withLock { $0.removeAll { $0.path == path } } }
        return try body()
    }

    package static func code(for call: Call, at path: String) -> Int32? {
        failing.withLock { faults in
            guard let i = faults.firstIndex(where: { $0.call == call && $0.remaining > 0 && PathText.isSameOrInside(path, $0.path) })
            else { return nil }
            faults[i].remaining -= 1
            return faults[i].code
        }
    }
}
#endif
