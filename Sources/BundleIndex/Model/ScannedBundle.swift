/// What the scanner found in one bundle: everything a lookup on it can depend on
/// (docs/search-pattern.md), before it is written to the index.
struct ScannedBundle {
    /// Absolute path as the user names it (lexically normalised, symlinks not resolved, like
    /// `Bundle(path:)`).
    let path: String
    let layout: BundleLayout
    /// Every file in the Info.plist directory whose name matches `Info.plist`,
    /// `Info-macos.plist`, `Info-iphoneos.plist` or `Info-gnustep.plist` case-insensitively
    /// (docs/search-pattern.md, "Which Info.plist file is read").
    let infoPlists: [InfoPlistFile]
    /// Names of resource-directory entries ending in `.lproj` (suffix removed), in byte order.
    let lprojs: [String]
    /// Every directory a lookup can read, relative to the bundle root.
    let directories: [ScannedDirectory]
    /// Parsed `InfoPlist*.strings` files that a search for `InfoPlist.strings` can return.
    let stringsFiles: [StringsFile]
    /// Every `.strings` and `.stringsdict` file of `directories`, read (`Bundle.localizedString`).
    let tables: [StringsTable]
    let warnings: [String]
    /// Modification times of the parsed files (Info.plist, InfoPlist.strings): their content
    /// matters, and rewriting a file in place does not change its directory's mtime.
    let fileStamps: [FileStamp]
    /// Absolute paths of the bundle's directories that could not be listed (permissions): the
    /// scan is incomplete, and a build keeps what the index last held for the bundle instead.
    let unreadable: [String]
    /// Real paths of the directories outside the bundle that its symbolic links lead to (the
    /// tops only): their content is indexed under the bundle's own paths, so the watcher
    /// watches them too (docs/watching.md, "Links out of a bundle"). Not stored in the index.
    var outsideTargets: [String] = []

    /// Everything whose change can change an answer: every indexed directory and every parsed
    /// file, with its modification time. The watcher compares them after a restart.
    var stamps: [FileStamp] {
        directories.map { FileStamp(path: $0.path, modificationTime: $0.modificationTime) } + fileStamps
    }

    var resourceCount: Int { directories.reduce(0) { $0 + $1.entries.count } }
}

/// A path relative to the bundle root and its modification time (ns).
struct FileStamp: Equatable, Sendable {
    let path: String
    let modificationTime: UInt64
}

struct ScannedDirectory {
    /// Relative to the bundle root, no leading or trailing `/`; "" is the root.
    let path: String
    let entries: [DirectoryEntry]
    let modificationTime: UInt64
}

struct InfoPlistFile: Equatable {
    /// The name as it is on disk (`Info.plist`, `info.plist`, `Info-gnustep.plist`, ...).
    let name: String
    /// nil when the file is not a readable property-list dictionary.
    let dictionary: [String: PropertyListValue]?
}

struct StringsFile {
    let directory: String
    let name: String
    let dictionary: [String: PropertyListValue]?
}
