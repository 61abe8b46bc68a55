import Foundation

/// The strings tables and property-list files one build has read, by real path: the file's name
/// after the real path of its folder, links resolved. Debian links
/// `lib/GNUstep/Applications/X.app/Resources` to `share/GNUstep/X.app`, which is a bundle of its
/// own, so each of its tables and its Info-gnustep.plist are files of two bundles; each is read
/// and parsed once, like the folder listings the walk lends by real path (docs/scanning.md,
/// "Symbolic links"). Never by inode or content: two hard links or two equal files are two
/// files, read each.
///
/// A real path names one file for the length of a build (a file rewritten meanwhile may be
/// seen as it was, as a folder listed once is). Only a file reached through a link (its real
/// path is not the path it was read by) is kept; every file is looked for. The walk goes in
/// byte order, so Debian's `lib/…/X.app/Resources` comes before `share/…/X.app`: the tables
/// read through the link are kept and found again where they lie. Keeping every file made a
/// build of gen-tree's real profile at 1M, which has no links, peak at 207 MiB instead of
/// 138. Bounded: for each kind, two generations of at most `bytesPerGeneration` bytes of files
/// each; when the newer one is full, the older one is dropped. A file reached again soon after
/// (the next bundles of the walk) is still held.
///
/// Shared by the two threads of a build (`ScanPipeline`: either may read a bundle's files): a
/// lock guards the two tables, never a file's read, so the threads read files side by side (two
/// reads of one file at the same moment both read it, and one is kept).
final class FilesRead: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var tables: Generations<StringsTableReader.FileRead>
    private var propertyLists: Generations<PropertyListReader.StampedDictionary>
    private let keeps: Bool

    /// `bytesPerGeneration` 0: nothing is kept (a scan outside a build).
    init(bytesPerGeneration: Int = 4 << 20) {
        tables = Generations(bytesPerGeneration: bytesPerGeneration)
        propertyLists = Generations(bytesPerGeneration: bytesPerGeneration)
        keeps = bytesPerGeneration > 0
    }

    /// Keeps nothing.
    static var none: FilesRead { FilesRead(bytesPerGeneration: 0) }

    /// The strings table at `path`, read unless it was read before under `realPath`.
    func table(_ path: String, realPath: String?) throws -> StringsTableReader.FileRead {
        try value(\.tables, readAt: path, realPath: realPath) {
            let read = try StringsTableReader.file(path)
            return (read, read.size)
        }
    }

    /// The property list at `path` (`PropertyListReader.stampedDictionary`), read unless it was
    /// read before under `realPath`. Its name decides `gnustep`, so one real path has one answer.
    func propertyList(_ path: String, realPath: String?, gnustep: Bool = false) throws -> PropertyListReader.StampedDictionary {
        try value(\.propertyLists, readAt: path, realPath: realPath) {
            let read = try PropertyListReader.stampedDictionary(atPath: path, gnustep: gnustep)
            return (read, read.size)
        }
    }

    /// The value held for `realPath`, else `read`'s of the file at `path`, kept when `realPath`
    /// is known and another spelling than `path` (the file was read through a link). A read
    /// that throws keeps nothing.
    private func value<Value>(_ kind: ReferenceWritableKeyPath<FilesRead, Generations<Value>>, readAt path: String,
                              realPath: String?, read: () throws -> (Value, size: Int)) rethrows -> Value {
        guard keeps, let realPath = realPath.map(BytewiseString.init) else { return try read().0 }
        if let held = lock.withLock({ self[keyPath: kind].held(realPath) }) { return held }
        let (value, size) = try read()
        if realPath != BytewiseString(text: path) {
            lock.withLock { self[keyPath: kind].keep(value, realPath: realPath, size: size) }
        }
        return value
    }

    /// Values by real path, in two generations (the type's comment).
    private struct Generations<Value> {
        // By bytes: "é" in one scalar and in two are two files (`BytewiseString`).
        private var recent: [BytewiseString: Value] = [:]
        private var older: [BytewiseString: Value] = [:]
        private var recentBytes = 0
        let bytesPerGeneration: Int

        init(bytesPerGeneration: Int) { self.bytesPerGeneration = bytesPerGeneration }

        func held(_ realPath: BytewiseString) -> Value? { recent[realPath] ?? older[realPath] }

        mutating func keep(_ value: Value, realPath: BytewiseString, size: Int) {
            if recentBytes + size > bytesPerGeneration {
                older = recent
                recent = [:]
                recentBytes = 0
            }
            recent[realPath] = value
            recentBytes += size
        }
    }
}
