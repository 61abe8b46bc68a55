/// Decides, when a bundle is scanned, what the walk of a later incremental build does with each of
/// its indexed folders if the bundle is then found unchanged (`ScannedDirectory.unchangedWalk`,
/// kept in the directory records; docs/scanning.md, "Folders the walk passes over"). The
/// incremental build used to work this out from the stored records for every unchanged bundle
/// (~9 % of a one-file build of the real corpus ×19); an unchanged bundle's folders are the ones
/// it was scanned with, so the answer is the scan's.
///
/// A folder is *reached* when the walk, which follows no links, gets there: the bundle root; a
/// folder its reached parent lists as a real directory; the top of the indexed tree
/// (`Contents/Resources`) when every folder on the way is a real directory. The walk takes the
/// stored listing of a reached folder it must enter: one that may be a bundle or lead the walk on
/// by its name and listing (`TreeWalker.nameMayBeBundle`, `leadsOn`), that lists a folder with no
/// record (the walk would read that one), or that has a child it must enter; the root is always
/// entered. The topmost reached folder of each subtree it need not enter is passed over, with
/// everything below it.
enum UnchangedWalkPlan {
    static func apply(to directories: inout [ScannedDirectory], bundle: String) {
        // A parent's path is shorter than its children's, so one pass in that order decides
        // them all.
        let sorted = directories.indices.sorted { directories[$0].path.utf8.count < directories[$1].path.utf8.count }
        let slash = UInt8(ascii: "/")
        // The reached folders in that order (positions in `directories`), each with where its
        // parent is among them (nil for a top).
        var order: [(directory: Int, parent: Int?)] = []
        order.reserveCapacity(sorted.count)
        // Each path decided: its position in `order` when reached, -1 when not. A path listed
        // twice is decided once, by its first directory.
        var decided: PathMap<Int> = [:]
        for index in sorted {
            let path = directories[index].path
            guard decided[path] == nil else { continue }
            let cut = path.utf8.lastIndex(of: slash)
            let parentPath = cut.map { String(path[..<$0]) } ?? ""
            let name = cut.map { path[path.index(after: $0)...] } ?? Substring(path)
            var reached: Bool
            var parent: Int? = nil
            if path.isEmpty {
                reached = true
            } else if let at = decided[parentPath] {
                // Listed there as a real directory (the walk enters no link).
                reached = at >= 0 && Self.flags(of: name, in: directories[order[at].directory].entries)?.contains(.directory) == true
                if at >= 0 { parent = at }
            } else {
                // The top of the indexed tree: no record above it.
                var prefix = bundle
                reached = PathText.components(path, omittingEmpty: true).allSatisfy { component in
                    prefix += "/" + component
                    return FileSystem.isRealDirectory(prefix)
                }
            }
            guard reached else {
                decided[path] = -1
                continue
            }
            decided[path] = order.count
            order.append((index, parent))
        }
        // Children before parents: a folder is entered when it may be a bundle or lead the walk
        // on by its name and listing, lists a folder that was not reached, or has a child that
        // is entered.
        var entered = [Bool](repeating: false, count: order.count)
        var reachedChildren = [Int](repeating: 0, count: order.count)
        for at in order.indices.reversed() {
            let (index, parent) = order[at]
            if let parent { reachedChildren[parent] += 1 }
            let directory = directories[index]
            if entered[at] || directory.path.isEmpty || reachedChildren[at] != directory.entries.count(where: \.isDirectory)
                || TreeWalker.nameMayBeBundle(directory.path)
                || Self.leadsOn(directory.entries, path: PathText.absolute(directory.path, in: bundle)) {
                entered[at] = true
                if let parent { entered[parent] = true }
            }
        }
        var walk: PathMap<UnchangedWalk> = [:]
        for (at, (index, parent)) in order.enumerated() {
            if entered[at] {
                walk[directories[index].path] = .enter
            } else if parent.map({ entered[$0] }) ?? true {
                walk[directories[index].path] = .passOver
            }
        }
        for index in directories.indices {
            directories[index].unchangedWalk = walk[directories[index].path] ?? .none
        }
    }

    /// Whether an entry of the folder at `path` (absolute) may make it a bundle or lead the walk on
    /// (`TreeWalker.entryMayLeadToBundle`). An Info.plist name alone does not in a folder whose
    /// path ends in `Contents`, `Resources` or `Support Files` and which holds no layout folder:
    /// such a folder is flat, and CF takes a flat folder of that name for another bundle's innards
    /// (`TreeWalker.isBundle`). That is every GNUstep application's `Resources`, which holds its
    /// `Info-gnustep.plist`; the walk of a one-file build entered it in every unchanged bundle.
    /// Whatever makes it otherwise changes the folder's listing, and so its stamp.
    static func leadsOn(_ entries: [DirectoryEntry], path: String) -> Bool {
        let leading = entries.filter(TreeWalker.entryMayLeadToBundle)
        if leading.isEmpty { return false }
        guard BundleScanner.isInnards(path) else { return true }
        return leading.contains { !BundleScanner.isInfoPlistName($0) }
    }

    /// The flags of the entry called `name` in `entries` (byte order), nil when there is none.
    private static func flags(of name: Substring, in entries: [DirectoryEntry]) -> DirectoryEntry.Flags? {
        let name = String(name)
        var low = 0, high = entries.count - 1
        while low <= high {
            let middle = (low + high) / 2
            if sameBytes(entries[middle].name, name) { return entries[middle].flags }
            if byteOrder(entries[middle].name, name) { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }
}
