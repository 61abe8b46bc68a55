/// One directory entry as CF's `_CFIterateDirectory` sees it (docs/search-pattern.md,
/// "Directory listings").
package struct DirectoryEntry: Hashable, Sendable {
    package struct Flags: OptionSet, Hashable, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        /// `d_type == DT_DIR`: CF reports the entry with a trailing `/`.
        package static let directory = Flags(rawValue: 1)
        /// A symbolic link (never gets a trailing `/`, even when it points at a directory).
        package static let symlink = Flags(rawValue: 2)
        /// A symbolic link that resolves to a directory: usable as a subdirectory in lookups.
        package static let symlinkToDirectory = Flags(rawValue: 4)
    }

    package let name: String
    package let flags: Flags
    /// Position in readdir order. Visible order is byte order, but CF's answer depends on
    /// readdir order in two places — two equally specific variants of one name (which one wins
    /// depends on which CF reads first; docs/search-pattern.md, "Variants in one directory") and
    /// the truncation of a localized listing at a global name containing `.lproj`
    /// (L-lproj-substring) — and the rank lets the index reproduce both for an unchanged
    /// directory.
    package var rank: UInt32 = 0

    package var isDirectory: Bool { flags.contains(.directory) }
    /// A directory or a link to one: CF can descend into it and the layout rules count it.
    package var isTraversable: Bool { flags.contains(.directory) || flags.contains(.symlinkToDirectory) }
    package var countsForLayout: Bool { flags.contains(.directory) || flags.contains(.symlink) }
    /// The localization an entry `<l>.lproj` names (`l`, not empty), as the scan lists a bundle's
    /// lprojs (`BundleRecord.lprojs`); nil for any other entry.
    package var lprojName: String? {
        name.hasSuffix(".lproj") && name.utf16.count > 6 ? String(name.dropLast(6)) : nil
    }

    package init(name: String, flags: Flags, rank: UInt32 = 0) {
        self.name = name
        self.flags = flags
        self.rank = rank
    }
}

/// `bundleidx sync` drops files named `.bundleidx-cookie-*` into a watched root; they are never
/// indexed (docs/watching.md).
package enum SyncCookie {
    package static let prefix = ".bundleidx-cookie-"
    /// The names of the cookies a watcher answers with bytes (`ClaimedCookie`); a sync that
    /// waits for its cookie to be removed (before the sixteenth session) names them without it,
    /// and a watcher removes those only after its commit.
    package static let answeredByBytes = prefix + "v2-"
}
