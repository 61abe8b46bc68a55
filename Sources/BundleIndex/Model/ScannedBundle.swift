/// What the scanner found in one bundle: everything a lookup on it can depend on
/// (docs/search-pattern.md), before it is written to the index.
package struct ScannedBundle {
    /// Absolute path as the user names it (lexically normalised, symlinks not resolved, like
    /// `Bundle(path:)`).
    package let path: String
    package let layout: BundleLayout
    /// Every file in the Info.plist directory whose name matches `Info.plist`,
    /// `Info-macos.plist`, `Info-iphoneos.plist` or `Info-gnustep.plist` case-insensitively
    /// (docs/search-pattern.md, "Which Info.plist file is read").
    package var infoPlists: [InfoPlistFile]
    /// Names of resource-directory entries ending in `.lproj` (suffix removed), in readdir order.
    package var lprojs: [String]
    /// Every directory a lookup can read, relative to the bundle root.
    package var directories: [ScannedDirectory]
    /// Parsed `InfoPlist*.strings` files that a search for `InfoPlist.strings` can return.
    package var stringsFiles: [StringsFile]
    /// Every `.strings` and `.stringsdict` file of `directories`, read (`Bundle.localizedString`).
    package var tables: [StringsTable]
    package var warnings: [String]
    /// Change times of what no directory stamps: the parsed files (Info.plist,
    /// InfoPlist.strings), whose content matters while rewriting a file in place does not change
    /// its directory's time; the bundle root and Info.plist folder outside the indexed tree; and
    /// the scan's `walkStamps` (links' folders, unreadable folders).
    package var fileStamps: [FileStamp]
    /// Absolute paths of the bundle's directories that could not be listed (permissions): the
    /// scan is incomplete, and a build keeps what the index last held for the bundle instead.
    package let unreadable: [String]
    /// Real paths of the directories outside the bundle that its symbolic links lead to (the
    /// tops only): their content is indexed under the bundle's own paths, so the watcher
    /// watches them too (docs/watching.md, "Links out of a bundle"). Not stored in the index.
    package var outsideTargets: [String] = []
    /// What a build's walk left of the scan for either of its threads to do (`ScanPipeline`,
    /// `BundleScanner.readFiles`); until then `lprojs`, `infoPlists`, `stringsFiles`, the
    /// tables and the files' stamps are empty, and no directory has its `unchangedWalk`. nil
    /// once done. Not stored in the index.
    package var unfinished: UnfinishedScan?

    /// Everything whose change can change an answer: every indexed directory and every parsed
    /// file, with its change time. The watcher compares them after a restart.
    package var stamps: [FileStamp] {
        directories.map { FileStamp(path: $0.path, changeTime: $0.changeTime, inode: $0.inode) } + fileStamps
    }

    package var resourceCount: Int { directories.reduce(0) { $0 + $1.entries.count } }

    // The scanner (module BundleIndex) makes these values, and Swift's memberwise initialisers
    // are internal: the ones here are written out with `package` access, one per type.
    package init(path: String, layout: BundleLayout, infoPlists: [InfoPlistFile], lprojs: [String],
                 directories: [ScannedDirectory], stringsFiles: [StringsFile], tables: [StringsTable],
                 warnings: [String], fileStamps: [FileStamp], unreadable: [String], outsideTargets: [String] = []) {
        self.path = path
        self.layout = layout
        self.infoPlists = infoPlists
        self.lprojs = lprojs
        self.directories = directories
        self.stringsFiles = stringsFiles
        self.tables = tables
        self.warnings = warnings
        self.fileStamps = fileStamps
        self.unreadable = unreadable
        self.outsideTargets = outsideTargets
    }
}

/// What the walk of an incremental build does with an indexed folder of a bundle it finds
/// unchanged (docs/scanning.md, "Folders the walk passes over"): takes its stored listing
/// instead of reading the disk, passes over it and everything below it, or neither (a folder
/// inside one passed over, or one the walk does not reach: it follows no links).
package enum UnchangedWalk: UInt8, Sendable {
    case none = 0
    case enter = 1
    case passOver = 2
}

/// A path relative to the bundle root and its change time (`st_ctim`, ns; 0 when it could
/// not be read), with the inode number of what it named when the path could come to name
/// another folder whose times are all alike (`ScannedDirectory.inode`); 0 when not compared.
package struct FileStamp: Equatable, Sendable {
    package let path: String
    package let changeTime: UInt64
    package let inode: UInt64

    package init(path: String, changeTime: UInt64, inode: UInt64) {
        self.path = path
        self.changeTime = changeTime
        self.inode = inode
    }

    /// `path` with a stamp as read from the disk (`FileSystem.stamp`).
    package init(path: String, _ read: FileSystem.Stamp) {
        self.init(path: path, changeTime: read.changeTime, inode: read.inode)
    }

    /// Whether a stamp of `time`, read by a scan that began at `scanBegan` (both ns since
    /// 1970), proves that nothing changed after the scan read it. A change within the same tick
    /// of the file system's clock leaves the same time, so only a time older than the scan by
    /// more than a tick does. Linux takes file times from a clock that advances once per timer
    /// tick (1–10 ms) and lags the wall clock by at most one: 50 ms is taken. A time on a whole
    /// second is taken to come from a file system that keeps whole seconds (ext3, ext4 with
    /// 128-byte inodes) or even two (FAT): 2 s.
    package static func isSettled(_ time: UInt64, scanBegan: UInt64) -> Bool {
        let tick: UInt64 = time % 1_000_000_000 == 0 ? 2_000_000_000 : 50_000_000
        return scanBegan >= tick && time < scanBegan - tick
    }
}

package struct ScannedDirectory {
    /// Relative to the bundle root, no leading or trailing `/`; "" is the root.
    package let path: String
    package let entries: [DirectoryEntry]
    package let changeTime: UInt64
    /// The folder's inode number for the bundle root and for a folder reached through a
    /// symbolic link that leads out of the walked tree, 0 for the others. Renames above a
    /// bundle, or a link retargeted, can make such a path name another folder whose change
    /// times are all alike (two copies written within one clock tick); every other folder is a
    /// plain entry of a stamped folder, whose time a rename changes, or reached by a link to a
    /// folder walked under its own path as well (docs/scanning.md, "Inode numbers").
    package let inode: UInt64
    /// The directory's real path when the scan knew it (links resolved): a build reads a
    /// file reached twice through links once (`FilesRead`). Not stored.
    package let realPath: String?
    /// What the walk of a later incremental build does with this folder if the bundle is then
    /// unchanged; decided by the scan (`UnchangedWalkPlan`), kept in the directory record.
    package var unchangedWalk: UnchangedWalk = .none

    package init(path: String, entries: [DirectoryEntry], changeTime: UInt64, inode: UInt64 = 0, realPath: String? = nil) {
        self.path = path
        self.entries = entries
        self.changeTime = changeTime
        self.inode = inode
        self.realPath = realPath
    }
}

package struct InfoPlistFile: Equatable {
    /// The name as it is on disk (`Info.plist`, `info.plist`, `Info-gnustep.plist`, ...).
    package let name: String
    /// nil when the file is not a readable property-list dictionary.
    package let dictionary: [String: PropertyListValue]?

    package init(name: String, dictionary: [String: PropertyListValue]?) {
        self.name = name
        self.dictionary = dictionary
    }
}

/// What a scan hands on besides its listings for the rest of its work (`ScannedBundle.unfinished`).
package struct UnfinishedScan {
    /// The entries of the layout's Info.plist folder (none for a flat bundle that is another
    /// bundle's innards, or a folder that could not be listed).
    package let infoPlistFolderEntries: [DirectoryEntry]

    package init(infoPlistFolderEntries: [DirectoryEntry]) {
        self.infoPlistFolderEntries = infoPlistFolderEntries
    }
}

package struct StringsFile {
    package let directory: String
    package let name: String
    package let dictionary: [String: PropertyListValue]?

    package init(directory: String, name: String, dictionary: [String: PropertyListValue]?) {
        self.directory = directory
        self.name = name
        self.dictionary = dictionary
    }
}
