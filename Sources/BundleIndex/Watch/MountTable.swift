#if canImport(Glibc)
import Glibc

/// The process's mount table (`/proc/self/mountinfo`), which inotify does not report on: a file
/// system mounted over a folder, or unmounted from it, changes what its path names without an
/// event, and the watches of the folders below keep following the old ones. The kernel marks
/// the file readable with `POLLPRI` whenever the table changes (proc(5)); `changes()` reads it
/// again and names the mount points that came or went.
final class MountTable {
    let fd: Int32
    /// Each mount as its line names it: its id and its mount point.
    private var mounts: Set<String>

    init?() {
        let fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        // Closed here, before the properties are set: an init that fails after that runs
        // `deinit`, which would close it a second time.
        guard let table = Self.read(fd) else {
            close(fd)
            return nil
        }
        self.fd = fd
        mounts = table
    }

    deinit { close(fd) }

    /// The mount points whose mounts came or went since the last look (real paths).
    func changes() -> [String] {
        // A table read only in part would show every mount past the failure as gone.
        guard let now = Self.read(fd) else { return [] }
        let changed = now.symmetricDifference(mounts)
        mounts = now
        var points: [String] = []
        for key in changed {
            guard let tab = key.firstIndex(of: "\t") else { continue }
            let point = String(key[key.index(after: tab)...])
            if !points.contains(where: { sameBytes($0, point) }) { points.append(point) }
        }
        return points.sorted(by: byteOrder)
    }

    /// "id<TAB>mount point" for every line; the file read from its start (which re-arms the
    /// `POLLPRI` notice). Nil when a read fails (a shortage is noted: `ShortageLog`, the
    /// watcher stops).
    private static func read(_ fd: Int32) -> Set<String>? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        lseek(fd, 0, SEEK_SET)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                ShortageLog.noteFailure("read", "/proc/self/mountinfo")
                return nil
            }
            if n == 0 { break }
            bytes += chunk[..<n]
        }
        var out: Set<String> = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            // mount id, parent id, major:minor, root, mount point, …
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: false)
            guard fields.count >= 5 else { continue }
            out.insert(String(decoding: fields[0], as: UTF8.self) + "\t" + Self.unescaped(fields[4]))
        }
        return out
    }

    /// A mount point as the kernel writes it: space, tab, newline and backslash as `\ooo`.
    static func unescaped(_ field: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        var i = field.startIndex
        while i < field.endIndex {
            if field[i] == UInt8(ascii: "\\"), i + 3 < field.endIndex,
               let value = UInt8(String(decoding: field[(i + 1)...(i + 3)], as: UTF8.self), radix: 8) {
                out.append(value)
                i += 4
            } else {
                out.append(field[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension IndexWatcher {
    /// File systems mounted or unmounted at `points` (real paths): the watches of the folders
    /// there follow the old folders, so they are dropped; a root at or below one, or whose way
    /// passes through one, is replaced (`followRootWays`); a mount point in a root is watched
    /// and looked at again; bundles whose links or stamps' lookups lie there are read again.
    func mountsChanged(_ points: [String]) {
        for point in points {
            let named = eventPath(ofReal: point)
            tree.forget(named)
            for (root, real) in realRoots where PathText.isSameOrInside(real, point) || PathText.isSameOrInside(root, named) {
                pending.rootWay(root, surely: true)
            }
            for root in rootWays.bundles(lookingBelow: named) { pending.rootWay(root, surely: true) }
            if isUnderRoot(named) {
                if FileSystem.isDirectory(named) { tree.watchRecursively(named) }
                lookAgain(atFolder: named)
            }
            readAgainBundles(around: named)
        }
        reportLimit()
    }
}
#endif
