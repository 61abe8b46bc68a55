import Glibc

/// Shortages met by the file-system questions that answer without an error
/// (`FileSystem.isDirectory`, `stamp`, `realPath`, and the scans' own `fstatat` and `readlinkat`).
/// Such a question answers a failed call as if the path were not there, not a folder or not a
/// link: a scan short of kernel memory (`ENOMEM` from `stat` or `readlink`) took a bundle's
/// `Contents` for no folder and indexed the bundle without its resources, exit 0 (review w26,
/// finding 3). Each such failure is noted here, for the thread that met it; a write of the index
/// (`IndexStore.write`: a build, a watcher's batch), the walking thread of a build
/// (`ScanPipeline`) and `verify` take a mark when they begin and stop with the latest shortage
/// their thread noted since (docs/reliability.md, "Short of descriptors or memory").
///
/// By thread, so that a build stops for its own shortages only, not for those of another build
/// or a test's injected faults running beside it in the same process.
package enum ShortageLog {
    private final class Notes {
        var count: UInt64 = 0
        var latest: BundleIndexError?
    }

    /// The thread's `Notes`, made at its first shortage and released when it exits.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let made = pthread_key_create(&key) { notes in
            guard let notes else { return }
            Unmanaged<Notes>.fromOpaque(notes).release()
        }
        precondition(made == 0, "pthread_key_create failed")
        return key
    }()

    private static var notes: Notes? {
        pthread_getspecific(key).map { Unmanaged<Notes>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Where this thread's log stands now, to compare with later (`throwIfNoted(since:)`).
    package static func mark() -> UInt64 { notes?.count ?? 0 }

    /// Notes that `call` on `path` just failed, when `errno` says the process or the system ran
    /// short (`FileSystem.isShortage`); leaves `errno` as it was.
    package static func noteFailure(_ call: StaticString, _ path: @autoclosure () -> String) {
        let code = errno
        guard FileSystem.isShortage(code) else { return }
        record(FileSystem.shortage("\(call)", path(), code))
        errno = code
    }

    /// Notes `error` when it is a shortage (`FileSystem.shortage`) that its catcher answers
    /// without passing it on (a folder the watcher could not list is left unwatched).
    package static func noteFailure(_ error: any Error) {
        guard let error = error as? BundleIndexError, case .system(_, let code) = error,
              FileSystem.isShortage(code.rawValue) else { return }
        record(error)
    }

    private static func record(_ error: BundleIndexError) {
        let own: Notes
        if let notes {
            own = notes
        } else {
            own = Notes()
            pthread_setspecific(key, Unmanaged.passRetained(own).toOpaque())
        }
        own.count &+= 1
        own.latest = error
    }

    /// Throws the latest shortage this thread noted since `mark`, if it noted any.
    package static func throwIfNoted(since mark: UInt64) throws(BundleIndexError) {
        if let notes, notes.count != mark, let latest = notes.latest { throw latest }
    }
}
