import BundleIndexCore
import Synchronization

/// What a `bundleidx_index *` points at: the open index and the rules bundles opened from it
/// answer under. Shared by the caller's threads: the reader is thread-safe (one read
/// transaction per call) and the languages sit behind a mutex.
final class IndexHandle: Sendable {
    let reader: IndexReader
    let profile: SearchContext.Profile
    /// The context a bundle opened now gets; `bundleidx_set_languages` replaces it.
    private let current: Mutex<SearchContext>

    init(reader: IndexReader, profile: SearchContext.Profile) {
        self.reader = reader
        self.profile = profile
        current = Mutex(Self.context(profile: profile, languages: nil))
    }

    var context: SearchContext { current.withLock { $0 } }

    /// Fails (false) under foundation-linux, whose language is fixed, as `--lang` does.
    func setLanguages(_ languages: [String]?) -> Bool {
        guard profile == .apple else { return false }
        let context = Self.context(profile: profile, languages: languages)
        current.withLock { $0 = context }
        return true
    }

    /// A language list as `--lang` reads it: comma-separated, spaces around each name ignored,
    /// empty names dropped.
    static func languages(commaSeparated list: String) -> [String] {
        list.split(separator: ",").compactMap { name in
            let trimmed = name.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
            return trimmed.isEmpty ? nil : String(trimmed)
        }
    }

    /// The CLI's context for a profile and `--lang` on Linux without `--platform`/`--device`:
    /// nil or no languages means the environment's.
    static func context(profile: SearchContext.Profile, languages: [String]?) -> SearchContext {
        switch profile {
        case .foundationLinux: return .foundationLinux
        case .apple: return .apple(languages: languages.flatMap { $0.isEmpty ? nil : $0 })
        }
    }
}

/// What a `bundleidx_bundle *` points at. An `IndexedBundle` is an immutable value holding
/// its reader, so threads may share the handle and it keeps the index open after
/// `bundleidx_close`.
final class BundleHandle: Sendable {
    let bundle: IndexedBundle

    init(_ bundle: IndexedBundle) { self.bundle = bundle }
}

/// Handles cross the C boundary as retained opaque pointers: `open` passes one reference to
/// the caller, `close` takes it back.
extension Unmanaged {
    static func handle(_ pointer: OpaquePointer?) -> Unmanaged? {
        pointer.map { Unmanaged.fromOpaque(UnsafeRawPointer($0)) }
    }

    var opaque: OpaquePointer { OpaquePointer(toOpaque()) }
}
