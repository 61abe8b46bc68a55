/// The incremental build's question for every bundle its walk finds: does the index hold this
/// bundle exactly as a scan would find it now? Asked on the walking thread, in a read snapshot
/// of the index as the build found it (docs/scanning.md, "Incremental builds").
///
/// A bundle is unchanged when its record belongs to the root being built and every stamp the
/// index keeps for it still matches the disk: each indexed directory (an entry added, removed or
/// renamed changes its directory's change time), the bundle root and the Info.plist
/// directory, every parsed Info.plist and InfoPlist.strings file, every strings table (a
/// file rewritten in place changes only its own time), the folders links the scan does not
/// follow lead into, and the folders it could not list; with inode numbers where a path can
/// come to name a copy (docs/scanning.md, "Inode numbers"). A stamp from the clock tick its scan
/// began in or later proves nothing — the file could have changed again within that tick — so
/// such a bundle is read again (`FileStamp.isSettled`).
struct UnchangedBundles {
    let snapshot: IndexSnapshot
    let root: String
    /// The stamps are read through the folder holding each bundle (`ParentFolders`), kept open
    /// between questions: one `UnchangedBundles` per thread.
    private let folders = ParentFolders()
    /// What checks read below linked folders, shared by the build's checking threads.
    let linkedTimes: LinkedFolderTimes

    init(snapshot: IndexSnapshot, root: String, linkedTimes: LinkedFolderTimes = LinkedFolderTimes()) {
        self.snapshot = snapshot
        self.root = root
        self.linkedTimes = linkedTimes
    }

    /// What the build keeps of an unchanged bundle.
    struct Reuse {
        /// The listings of its directories that the tree walk would otherwise read again, by
        /// absolute path: only directories reached without a symbolic link, which the walk visits
        /// (the bundle root too, when it is part of the resource tree), and only those it must
        /// enter (see `skipped`).
        let listings: PathMap<DirectoryListing>
        /// Folders of the bundle the walk need not enter, by absolute path (the topmost of each
        /// such subtree): every folder in them is reached, unchanged, and by its own name and
        /// listing can be no bundle and leads the walk nowhere else (`TreeWalker.nameMayBeBundle`,
        /// `entryMayLeadToBundle`), so walking them would find nothing. The scan decided which
        /// (`UnchangedWalkPlan`). The walk through unchanged bundles was 15 % of a one-file build
        /// of the real corpus ×19.
        var skipped: [String] = []
        /// Its directory entries, counted as a scan counts them (`ScannedBundle.resourceCount`).
        let resources: Int
    }

    /// The reuse of `path`'s records, nil when the bundle must be read again. A record that
    /// cannot be read counts as a change: reading the bundle again is always correct.
    func reuse(_ path: String) -> Reuse? {
        (try? check(path)) ?? nil
    }

    private func check(_ path: String, trusting: Bool = true) throws -> Reuse? {
        // Every record carries a stamp of the bundle root; one without it was written before the
        // root and Info.plist folders outside the resource tree were stamped, and is read again.
        guard let record = try snapshot.bundleStamps(path: path), sameBytes(record.root, root) else { return nil }
        // The record's own stamps, and each directory record's (format 11), read in place: a
        // listing is decoded only for a folder the walk enters (decoding every directory record
        // and keying every listing by its absolute path were ~16 % of a one-file build).
        let directories = try snapshot.storedDirectories(bundle: record.id)
        guard record.stamps.contains(where: { $0.path.isEmpty }) || directories.contains(where: { $0.path.isEmpty })
        else { return nil }
        // A stamp from the clock tick the scan began in, or later, may hide a second change.
        func settled(_ time: UInt64) -> Bool { FileStamp.isSettled(time, scanBegan: record.scanBegan) }
        guard record.stamps.allSatisfy({ settled($0.changeTime) }),
              directories.allSatisfy({ settled($0.changeTime) }), let folder = folders.folder(path)
        else { return nil }
        // What a bundle checked before read through its link to this folder is taken on trust,
        // and settled at the end (`BundleFolder.finish`).
        folder.share(linkedTimes, trusting: trusting)
        // The folder holding Info.plist (`Resources`, `Contents`, `Support Files`), when it is a
        // link, is read past once, where it leads: Debian links each GNUstep application's to its
        // folder under share/. Worth a `readlink` only when several stamps lie below it.
        let top = record.layout.infoPlistDirectory
        if !top.isEmpty && directories.count >= Self.stampsWorthALink { folder.follow(top) }
        guard folder.allMatch(record.stamps),
              directories.allSatisfy({ folder.matches($0.path, $0.changeTime, inode: $0.inode) }) else { return nil }
        // Every strings table's own time against its table record's; what the walk takes or
        // passes over, as the scan decided it (`UnchangedWalkPlan`, format 15). A listing is
        // decoded only for a folder the walk enters.
        var resources = 0
        var listings: PathMap<DirectoryListing> = [:]
        var skipped: [String] = []
        for directory in directories {
            resources += directory.count
            let tablesMatch = try directory.tables(allSatisfy: { name in
                let relative = PathText.join(directory.path, name)
                guard let stamp = try snapshot.stringsTableChangeTime(bundle: record.id, StringsKey.Table(relative)),
                      settled(stamp) else { return false }
                return folder.matches(relative, stamp, inode: 0)
            })
            guard tablesMatch else { return nil }
            switch directory.unchangedWalk {
            case .enter:
                listings[PathText.absolute(directory.path, in: path)] =
                    DirectoryListing(entries: try directory.entries(), changeTime: directory.changeTime,
                                     inode: directory.inode == 0 ? nil : directory.inode)
            case .passOver:
                skipped.append(PathText.absolute(directory.path, in: path))
            case .none:
                break
            }
        }
        // Taken on trust and not the times the linked bundle read: read them from the disk.
        guard folder.finish() else { return try check(path, trusting: false) }
        return Reuse(listings: listings, skipped: skipped, resources: resources)
    }

    /// Below this many directory records a bundle's inner folder is read as a path, link or
    /// not: a `readlink` and an open cost about four `stat`s' worth of link resolving.
    private static let stampsWorthALink = 4
}
