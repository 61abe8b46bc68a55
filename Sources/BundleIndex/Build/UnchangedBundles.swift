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
        /// (the bundle root too, when it is part of the resource tree).
        let listings: [String: DirectoryListing]
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
        // The record's own stamps, and each directory record's (format 11).
        let directories = try snapshot.directoryRecords(bundle: record.id)
        let stamps = record.allStamps(with: directories)
        guard stamps.contains(where: { $0.path.isEmpty }) else { return nil }
        // Stamps from the second before the scan began, or later, may hide a second change.
        let trustedBefore = (record.scannedAt &- 1) &* 1_000_000_000
        guard stamps.allSatisfy({ $0.modificationTime < trustedBefore }), let folder = folders.folder(path),
              folder.allMatch(stamps) else { return nil }
        var resources = 0
        for directory in directories {
            resources += directory.entries.count
            for e in directory.entries where StringsTable.isTable(e.name) && !e.isDirectory {
                let relative = PathText.join(directory.path, e.name)
                guard let stamp = try snapshot.stringsTableModificationTime(bundle: record.id, StringsKey.Table(relative)),
                      stamp < trustedBefore, folder.modificationTime(relative) == stamp
                else { return nil }
            }
        }
        return Reuse(listings: plainListings(directories, bundle: path), resources: resources)
    }

    /// Listings of the directories the tree walk reaches (it follows no links): a directory is
    /// reached when its parent is and lists it as a directory; the top of the indexed tree
    /// (`Contents/Resources`) when every folder on the way is a real directory.
    private func plainListings(_ directories: [DirectoryRecord], bundle: String) -> [String: DirectoryListing] {
        // A parent's path is shorter than its children's, so one pass in that order decides them
        // all (comparing lengths, not bytes: the sort was a third of this function).
        let sorted = directories.sorted { $0.path.utf8.count < $1.path.utf8.count }
        let slash = UInt8(ascii: "/")
        var reached: [Substring: [DirectoryEntry]] = [:]
        reached.reserveCapacity(sorted.count)
        var unreached: Set<Substring> = []
        var out: [String: DirectoryListing] = [:]
        out.reserveCapacity(sorted.count)
        for directory in sorted {
            let path = directory.path
            let cut = path.utf8.lastIndex(of: slash)
            let parent = cut.map { path[..<$0] } ?? ""
            let name = cut.map { path[path.index(after: $0)...] } ?? Substring(path)
            let isReached: Bool
            if path.isEmpty {
                isReached = true
            } else if let siblings = reached[parent] {
                isReached = Self.lists(siblings, directory: name)
            } else if unreached.contains(parent) {
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
            reached[Substring(path)] = directory.entries
            let absolute = path.isEmpty ? bundle : bundle == "/" ? "/" + path : bundle + "/" + path
            out[absolute] = DirectoryListing(entries: directory.entries, modificationTime: directory.modificationTime)
        }
        return out
    }

    /// True when `entries` (in byte order) hold a real directory called `name`.
    private static func lists(_ entries: [DirectoryEntry], directory name: Substring) -> Bool {
        let wanted = String(name)
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if byteOrder(entries[mid].name, wanted) { low = mid + 1 } else { high = mid }
        }
        return low < entries.count && entries[low].name == wanted && entries[low].isDirectory
    }
}
