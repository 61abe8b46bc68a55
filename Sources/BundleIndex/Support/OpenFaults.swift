#if DEBUG
import Synchronization

/// Test seam, compiled only in debug builds: the scans' opens (`FileSystem.openDescriptor`) of
/// a registered path, or of anything below a registered folder, fail with the registered
/// `errno`, as they would for a process out of descriptors. Tests run side by side, so each
/// registers paths of its own temporary folder only.
package enum OpenFaults {
    private static let failing = Mutex<[(path: String, code: Int32)]>([])

    /// Runs `body` with opens at or below `path` failing with `code`.
    package static func failing<T>(at path: String, with code: Int32, _ body: () throws -> T) rethrows -> T {
        failing.withLock { $0.append((path, code)) }
        defer { failing.withLock { $0.removeAll { $0.path == path } } }
        return try body()
    }

    static func code(forOpening path: String) -> Int32? {
        failing.withLock { $0.first { PathText.isSameOrInside(path, $0.path) }?.code }
    }
}
#endif
