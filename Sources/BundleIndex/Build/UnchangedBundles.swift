/// The incremental build's question for every bundle its walk finds: does the index hold this
/// bundle exactly as a scan would find it now? Asked on the walking thread, in a read snapshot
/// of the index as the build found it (docs/scanning.md, "Incremental builds").
///
/// A bundle is unchanged when its record belongs to the root being built and every stamp the
/// index keeps for it still matches the disk: each indexed directory (an entry added, removed or
/// renamed changes its directory's modification time), the bundle root and the Info.plist
/// directory, every parsed Info.plist and InfoPlist.strings file, and every strings table (a
/// file rewritten in place changes only its own time). A stamp from the second before its scan
/// or later proves nothing — the file could have changed again within the file system's clock
/// tick — so such a bundle is read again.
struct UnchangedBundles {
    let snapshot: IndexSnapshot
    let root: String
    /// The stamps are read through the folder holding each bundle (`ParentFolders`), kept open
    /// between questions: one `UnchangedBundles` per thread.
    private let folders = ParentFolders()

    init(snapshot: IndexSnapshot, root: String) {
        self.snapshot = snapshot
        self.root = root
    }

    /// What the build keeps of an unchanged bundle.
    struct Reuse {
        /// The listings of its directories that the tree walk would otherwise read again, by
        /// absolute path: only directories reached without a symbolic link, which the walk visits
        /// (the bundle root too, when it is part of the resource tree), and only those it must
        /// enter (see `skipped`).
        let listings: [String: DirectoryListing]
        /// Folders of the bundle the walk need not enter, by absolute path (the topmost of each
        /// such subtree): every folder in them is reached, unchanged, and by its own name and
        /// listing can be no bundle and leads the walk nowhere else (`TreeWalker.nameMayBeBundle`,
        /// `entryMayLeadToBundle`), so walking them would find nothing. The walk through unchanged
        /// bundles was 15 % of a one-file build of the real corpus ×19.
        var skipped: [String] = []
        /// Its directory entries, counted as a scan counts them (`ScannedBundle.resourceCount`).
        let resources: Int
    }

    /// The reuse of `path`'s records, nil when the bundle must be read again. A record that
    /// cannot be read counts as a change: reading the bundle again is always correct.
    func reuse(_ path: String) -> Reuse? {
        (try? check(path)) ?? nil
    }

    private func check(_ path: String) throws -> Reuse? {
        // Every record carries a stamp of the bundle root; one without it was written before the
        // root and Info.plist folders outside the resource tree were stamped, and is read again.
        guard let record = try snapshot.bundleStamps(path: path), record.root == root else { return nil }
        // The record's own stamps, and each directory record's (format 11), read in place: a
        // listing is decoded only for a folder the walk enters (decoding every directory record
        // and keying every listing by its absolute path were ~16 % of a one-file build).
        let directories = try snapshot.storedDirectories(bundle: record.id)
        guard record.stamps.contains(where: { $0.path.isEmpty }) || directories.contains(where: { $0.path.isEmpty })
        else { return nil }
        // Stamps from the second before the scan began, or later, may hide a second change.
        let trustedBefore = (record.scannedAt &- 1) &* 1_000_000_000
        guard record.stamps.allSatisfy({ $0.modificationTime < trustedBefore }),
              directories.allSatisfy({ $0.modificationTime < trustedBefore }), let folder = folders.folder(path),
              folder.allMatch(record.stamps),
              directories.allSatisfy({ folder.modificationTime($0.path) == $0.modificationTime }) else { return nil }
        var resources = 0
        var facts: [ListingFacts] = []
        facts.reserveCapacity(directories.count)
        for directory in directories {
            resources += directory.count
            var fact = ListingFacts()
            var tables: [String] = []
            try directory.forEachEntry { name, flags in
                if flags.contains(.directory) { fact.subfolders += 1 }
                if !fact.mayLeadToBundle, TreeWalker.entryMayLeadToBundle(name, flags) { fact.mayLeadToBundle = true }
                if !flags.contains(.directory), StringsTable.mayBeTable(name) { tables.append(String(decoding: name, as: UTF8.self)) }
            }
            for name in tables where StringsTable.isTable(name) {
                let relative = PathText.join(directory.path, name)
                guard let stamp = try snapshot.stringsTableModificationTime(bundle: record.id, StringsKey.Table(relative)),
                      stamp < trustedBefore, folder.modificationTime(relative) == stamp
                else { return nil }
            }
            facts.append(fact)
        }
        let (listings, skipped) = try plainListings(directories, facts, bundle: path)
        return Reuse(listings: listings, skipped: skipped, resources: resources)
    }

    /// What the walk needs to know of a listing it may not enter, gathered while its entries are
    /// read for the strings tables.
    private struct ListingFacts {
        /// Its entries that are real directories.
        var subfolders = 0
        /// Whether one of its entries may make it a bundle or lead the walk on
        /// (`TreeWalker.entryMayLeadToBundle`).
        var mayLeadToBundle = false
    }

    /// Listings of the directories the tree walk reaches (it follows no links) and must enter: a
    /// directory is reached when its parent is and lists it as a directory; the top of the
    /// indexed tree (`Contents/Resources`) when every folder on the way is a real directory.
    /// Reached folders whose whole subtree is quiet — each folder in it reached, and by its
    /// name and listing no possible bundle (`TreeWalker.nameMayBeBundle`,
    /// `entryMayLeadToBundle`) — are not entered: the topmost of each such subtree is returned
    /// among `skipped`, and none of their listings.
    private func plainListings(_ directories: [StoredDirectory], _ facts: [ListingFacts], bundle: String) throws
        -> (listings: [String: DirectoryListing], skipped: [String]) {
        // A parent's path is shorter than its children's, so one pass in that order decides them
        // all (comparing lengths, not bytes: the sort was a third of this function).
        let sorted = directories.indices.sorted { directories[$0].path.utf8.count < directories[$1].path.utf8.count }
        let slash = UInt8(ascii: "/")
        // The reached folders in that order (positions in `directories`), each with where its
        // parent is among them (nil for the top); positions, not paths, from here on.
        var order: [(directory: Int, parent: Int?)] = []
        order.reserveCapacity(sorted.count)
        var reached: [Substring: Int] = [:]
        reached.reserveCapacity(sorted.count)
        var unreached: Set<Substring> = []
        for index in sorted {
            let path = directories[index].path
            let cut = path.utf8.lastIndex(of: slash)
            let parentPath = cut.map { path[..<$0] } ?? ""
            let name = cut.map { path[path.index(after: $0)...] } ?? Substring(path)
            let isReached: Bool
            var parent: Int? = nil
            if path.isEmpty {
                isReached = true
            } else if let at = reached[parentPath] {
                // Listed there as a real directory (the walk enters no link).
                var name = name
                isReached = try name.withUTF8 { try directories[order[at].directory].flags(of: UnsafeRawBufferPointer($0)) }?
                    .contains(.directory) ?? false
                parent = at
            } else if unreached.contains(parentPath) {
                isReached = false
            } else {
                // The top of the indexed tree: no record above it.
                var prefix = bundle
                isReached = path.split(separator: "/").allSatisfy { component in
                    prefix += "/" + component
                    return FileSystem.isRealDirectory(prefix)
                }
            }
            guard isReached else { unreached.insert(Substring(path)); continue }
            reached[Substring(path)] = order.count
            order.append((index, parent))
        }
        // Children before parents: a folder must be entered when it may be a bundle or lead the
        // walk on by its name and listing, lists a folder that was not reached (the walk would
        // read that one), or has a child that must be entered. The bundle root is entered: it
        // is being visited.
        var entered = [Bool](repeating: false, count: order.count)
        var reachedChildren = [Int](repeating: 0, count: order.count)
        for at in order.indices.reversed() {
            let (index, parent) = order[at]
            if let parent { reachedChildren[parent] += 1 }
            let path = directories[index].path
            if entered[at] || path.isEmpty || facts[index].mayLeadToBundle || facts[index].subfolders != reachedChildren[at]
                || TreeWalker.nameMayBeBundle(path) {
                entered[at] = true
                if let parent { entered[parent] = true }
            }
        }
        var listings: [String: DirectoryListing] = [:]
        var skipped: [String] = []
        for (at, (index, parent)) in order.enumerated() {
            let directory = directories[index]
            if entered[at] {
                listings[Self.absolute(directory.path, in: bundle)] =
                    DirectoryListing(entries: try directory.entries(), modificationTime: directory.modificationTime)
            } else if parent.map({ entered[$0] }) ?? true {
                skipped.append(Self.absolute(directory.path, in: bundle))
            }
        }
        return (listings, skipped)
    }

    /// `path`, relative to the bundle, made absolute.
    private static func absolute(_ path: String, in bundle: String) -> String {
        path.isEmpty ? bundle : PathText.child(path, of: bundle)
    }
}
