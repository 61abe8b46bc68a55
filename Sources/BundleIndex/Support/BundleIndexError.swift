import SystemPackage

import Glibc

/// The one error type the BundleIndex library throws.
///
/// A lookup that finds nothing is not an error (it returns `nil`); these cases are about the
/// index, the input a caller gave, or the system. Each `description` is a sentence for a
/// person, saying what to do where there is something to do:
///
/// ```swift
/// do {
///     let index = try IndexReader(path: IndexLocation.default)
///     …
/// } catch let error as BundleIndexError {
///     print(error)   // "no index at /home/me/.cache/bundleidx (create one with: bundleidx build ROOT...)"
/// }
/// ```
public enum BundleIndexError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing exists at `path`: build an index there first.
    case missing(path: String)
    /// `path` exists but is not a bundleidx index (a file, an empty folder, another LMDB database…).
    case notAnIndex(path: String, reason: String)
    /// The index was written in another format version: build it again.
    case unsupportedVersion(path: String, found: UInt32, supported: UInt32)
    /// The index is damaged (truncated, overwritten, inconsistent): build it again.
    case corrupt(path: String, reason: String)
    /// `build` will not write an index at `path`, which holds something else.
    case refusingToOverwrite(path: String, reason: String)
    /// Another process holds what this one needs (a second watcher of one index).
    case busy(path: String, reason: String)
    /// The index folder is not safe to use: writable by every user, or a file in it is a
    /// symbolic link (docs/reliability.md, "Permissions").
    case insecure(path: String, reason: String)
    /// The storage engine (LMDB) or the file system under it failed; `code` is LMDB's return code
    /// or an `errno` value, `message` its text.
    case storage(path: String, code: Int32, message: String)
    /// Two names of one bundle hash to the same key (XXH3-64: not expected to happen in practice).
    case hashCollision(String)
    /// An input path is unusable: a root to build or watch that is not a directory.
    case badInput(path: String, reason: String)
    /// A system call failed (`call` names it and its argument).
    case system(call: String, errno: Errno)
    /// `IndexWatcher.sync(root:timeout:)` saw no watcher apply its cookie in time.
    case syncTimedOut(root: String, seconds: Double)

    public var description: String {
        switch self {
        case .missing(let path):
            return "no index at \(path) (create one with: bundleidx build ROOT... --index \(path))"
        case .notAnIndex(let path, let reason):
            return "\(path) is not a bundleidx index: \(reason)"
        case .unsupportedVersion(let path, let found, let supported):
            return "\(path) has index format version \(found); this bundleidx reads version \(supported) "
                + "(rebuild it with bundleidx build)"
        case .corrupt(let path, let reason):
            return "the index at \(path) is damaged: \(reason) (rebuild it with bundleidx build)"
        case .refusingToOverwrite(let path, let reason):
            return "refusing to write an index at \(path): \(reason)"
        case .busy(let path, let reason):
            return "\(path): \(reason)"
        case .insecure(let path, let reason):
            return "refusing to use the index at \(path): \(reason)"
        case .storage(let path, let code, let message):
            return "index \(path): \(message) (code \(code))"
        case .hashCollision(let what):
            return "hash collision while indexing (\(what)); please report it"
        case .badInput(let path, let reason):
            return "\(path): \(reason)"
        case .system(let call, let errno):
            return "\(call): \(errno.description)"
        case .syncTimedOut(let root, let seconds):
            return "no watcher applied the sync cookie in \(root) within \(seconds) s (is bundleidx watch running on it?)"
        }
    }

    /// A failed system call, from the current `errno`.
    package static func systemCall(_ call: String) -> BundleIndexError {
        .system(call: call, errno: Errno(rawValue: errno))
    }
}

extension BundleIndexError {
    /// A root or folder given as "", which made absolute would be the current directory (an
    /// unset variable in `bundleidx build "$ROOT"`).
    package static let emptyPath = BundleIndexError.badInput(path: "\"\"", reason: "an empty path names no directory")
}
