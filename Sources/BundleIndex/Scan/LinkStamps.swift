import Glibc

/// What an incremental build stamps so that it sees a symbolic link lead somewhere else in
/// kind — its target appearing where it dangled, turning from a file into a folder or back, or
/// another target chosen by a link further along — without stamping what it leads to, whose
/// content does not matter (a `fstatat` through each of the real corpus's 8 500 links to files
/// cost a one-file build 14 %; docs/performance.md, "Stamps of change times, inode numbers,
/// links and unreadable folders"). docs/scanning.md, "What a stamp holds".
enum LinkStamps {
    /// How many links a chain may have before its first link is stamped itself, followed to
    /// the end (the kernel gives up after 40: `MAXSYMLINKS`).
    static let maximumSteps = 40

    /// The folders to stamp for the link `name` of the folder open as `dirFD`, relative to that
    /// folder: for each link of the chain, the folder its target lies in, as the chain names it
    /// (its entries change when the target is made, removed, replaced or renamed, and a link
    /// among them retargeted shows in the inode number of the folder it now names). None for a
    /// target in the folder of `dirFD`, whose own stamp covers it. When a link of the chain is
    /// absolute, not UTF-8 or cannot be read, or the chain is too long or its path too long to
    /// name (the texts joined), `name` alone (stamped with what it leads to in the end: what
    /// any step leads to changes that, or its inode number).
    static func paths(of name: String, in dirFD: Int32) -> [String] {
        var paths: [String] = []
        // The link being followed and its folder, both relative to the folder of `dirFD`.
        var link = name, folder = ""
        for _ in 0..<maximumSteps {
            guard let text = text(of: link, in: dirFD), text.utf8.first != UInt8(ascii: "/") else { return [name] }
            let target = PathText.join(folder, text)
            guard target.utf8.count < Int(PATH_MAX) / 2 else { return [name] }
            if let slash = text.utf8.lastIndex(of: UInt8(ascii: "/")) {
                folder = PathText.join(folder, String(decoding: text.utf8[..<slash], as: UTF8.self))
                if !paths.contains(where: { sameBytes($0, folder) }) { paths.append(folder) }
            }
            var st = stat()
            guard FileSystem.fstatatNoting(dirFD, target, &st, flags: AT_SYMLINK_NOFOLLOW, path: target) else {
                // Nothing there (yet) ends the chain; any other error leaves it unknown.
                return errno == ENOENT || errno == ENOTDIR ? paths : [name]
            }
            guard st.st_mode & S_IFMT == S_IFLNK else { return paths }
            link = target
        }
        return [name]
    }

    /// The stamps of one folder's links, each path once (links to files of one folder share
    /// it: Debian links a GNUstep application's images one by one into one folder).
    struct Collected {
        private(set) var stamps: [DirectoryListing.LinkStamp] = []
        private var seen: PathSet = []

        /// Adds the stamps of the link `name` of the folder open as `dirFD`, with the change
        /// time and inode number of what each names, following links; 0 when that cannot be read.
        mutating func add(of name: String, in dirFD: Int32) {
            for path in LinkStamps.paths(of: name, in: dirFD) where seen.insert(path).inserted {
                var st = stat()
                let read: FileSystem.Stamp = FileSystem.fstatatNoting(dirFD, path, &st, path: path) ? FileSystem.stamp(st) : (0, 0)
                stamps.append((path, read.changeTime, read.inode))
            }
        }
    }

    /// The stamps of the links `names` of the folder at `path`, read now; none when the folder
    /// cannot be opened.
    static func read(_ names: [String], inFolder path: String) -> [DirectoryListing.LinkStamp] {
        let fd = open(path, FileSystem.openPath | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            ShortageLog.noteFailure("open", path)
            return []
        }
        defer { close(fd) }
        var collected = Collected()
        for name in names { collected.add(of: name, in: fd) }
        return collected.stamps
    }

    /// The text of the link `path` (relative to the folder open as `dirFD`); nil when it cannot
    /// be read, fills `PATH_MAX`, or is not UTF-8.
    static func text(of path: String, in dirFD: Int32) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Int(PATH_MAX)) { buffer in
            let length = readlinkat(dirFD, path, buffer.baseAddress!, buffer.count)
            if length < 0 { ShortageLog.noteFailure("readlink", path) }
            guard length > 0, length < buffer.count else { return nil }
            return String(validating: UnsafeBufferPointer(rebasing: buffer[..<length]), as: UTF8.self)
        }
    }

    /// Whether the link `name` in the real folder `folder` (a path without links) may lead out
    /// of the real folder `tree` — or through something outside it — as far as its text tells:
    /// true when the text is absolute or cannot be read, climbs (`..`) after naming a folder
    /// (which may be a link: the kernel climbs from where it leads), or, read from `folder`,
    /// ends outside `tree`. A folder reached through a link that stays inside is walked under
    /// its own path too, and every folder the link's text names is a plain entry of a stamped
    /// one (`ScannedDirectory.inode`).
    static func mayLeave(_ name: String, inRealFolder folder: String, tree: String) -> Bool {
        guard let text = text(of: PathText.child(name, of: folder), in: AT_FDCWD), text.utf8.first != UInt8(ascii: "/")
        else { return true }
        var path = PathText.components(folder, omittingEmpty: true)
        var named = false
        for component in PathText.components(text, omittingEmpty: true) {
            if sameBytes(component, ".") { continue }
            if sameBytes(component, "..") {
                guard !named, !path.isEmpty else { return true }
                path.removeLast()
            } else {
                named = true
                path.append(component)
            }
        }
        return !PathText.isSameOrInside("/" + path.joined(separator: "/"), tree)
    }
}
