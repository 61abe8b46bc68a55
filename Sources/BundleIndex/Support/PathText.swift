/// Lexical path helpers shared by the scanner and the query side.
package enum PathText {
    /// Joins non-empty components with `/`.
    package static func join(_ parts: String...) -> String {
        parts.filter { !$0.isEmpty }.joined(separator: "/")
    }

    /// `join` of two components without the array and the joining loop: opening a bundle joins
    /// a directory per search step (SearchPlan; 1.5 % of a batch's first pass in `joined`).
    package static func join(_ first: String, _ second: String) -> String {
        if first.isEmpty { return second }
        if second.isEmpty { return first }
        return first + "/" + second
    }

    /// `name` inside the absolute folder `folder` ("/" gives "/name", not "//name").
    package static func child(_ name: String, of folder: String) -> String {
        folder == "/" ? "/" + name : folder + "/" + name
    }

    /// A path relative to the absolute folder `folder` ("" for the folder itself) made absolute:
    /// how the scanner and the build name a bundle's directories and files on the disk.
    package static func absolute(_ relative: String, in folder: String) -> String {
        relative.isEmpty ? folder : child(relative, of: folder)
    }

    /// The components of `path` between its `/` bytes. Split by `Character`, a `/` followed by
    /// a combining mark (U+0301) is no separator, where the kernel and CF see one.
    package static func components(_ path: String, omittingEmpty: Bool) -> [String] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: omittingEmpty)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Removes `.` and empty components and resolves `..` lexically. nil when `..` would climb
    /// above the start.
    static func normalise(_ path: String) -> String? {
        var out: [String] = []
        for c in components(path, omittingEmpty: true) {
            if c == "." { continue }
            if c == ".." {
                if out.isEmpty { return nil }
                out.removeLast()
            } else {
                out.append(c)
            }
        }
        return out.joined(separator: "/")
    }

    /// An absolute, lexically normalised form of a path given on the command line or to the API.
    /// `currentDirectory` is asked for only when `path` is relative.
    package static func absolute(_ path: String, currentDirectory: @autoclosure () -> String) -> String {
        if isNormalAbsolute(path) { return path }
        let joined = path.utf8.first == UInt8(ascii: "/") ? path : currentDirectory() + "/" + path
        return "/" + (normalise(joined) ?? "")
    }

    /// Whether `absolute` would return `path` unchanged: it starts with `/` and has no empty,
    /// `.` or `..` component and no trailing `/` (or it is `/`). Bundles are usually opened by
    /// such paths; this spares them the split and join.
    static func isNormalAbsolute(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
            guard bytes.first == slash else { return false }
            if bytes.count == 1 { return true }
            var start = 1
            for end in 1...bytes.count where end == bytes.count || bytes[end] == slash {
                let length = end - start
                if length == 0 { return false }
                if length <= 2 && bytes[start] == dot && bytes[end - 1] == dot { return false }
                start = end + 1
            }
            return true
        }
    }

    /// The folder holding the absolute `path`: what precedes its last `/` byte, "/" when that is
    /// the first one (and for "/" itself, as `..` does there).
    package static func parent(of path: String) -> String {
        let utf8 = path.utf8
        guard let i = utf8.lastIndex(of: UInt8(ascii: "/")), i != utf8.startIndex else { return "/" }
        return String(decoding: utf8[..<i], as: UTF8.self)
    }

    /// What follows the last `/` byte of `path` (all of it when there is none).
    package static func lastComponent(_ path: String) -> String {
        guard let i = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(decoding: path.utf8[path.utf8.index(after: i)...], as: UTF8.self)
    }

    /// Whether absolute `path` is `folder` or lies below it (component-wise: `/a/bc` is not in
    /// `/a/b`), comparing bytes as the file system does: `String`'s `hasPrefix` and `==` take
    /// "é" in one scalar and in two for one (`EquivalentNamesTests`).
    package static func isSameOrInside(_ path: String, _ folder: String) -> Bool {
        path.withUTF8Bytes { p in
            folder.withUTF8Bytes { f in
                let slash = UInt8(ascii: "/")
                if f.count == 1 && f[0] == slash { return p.first == slash }
                guard p.count >= f.count,
                      sameBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(p)[..<f.count]), UnsafeRawBufferPointer(f))
                else { return false }
                return p.count == f.count || p[f.count] == slash
            }
        }
    }

    /// What follows `folder/` in the relative `path` (possibly nothing), by bytes; nil when
    /// `path` does not start with `folder/`.
    package static func below(_ folder: String, in path: String) -> String? {
        let prefix = folder.utf8.count
        guard path.utf8.count > prefix, path.utf8.starts(with: folder.utf8),
              path.utf8.dropFirst(prefix).first == UInt8(ascii: "/") else { return nil }
        return String(decoding: path.utf8.dropFirst(prefix + 1), as: UTF8.self)
    }

    /// Whether absolute `path` lies below `folder` (not `folder` itself), by bytes.
    package static func isInside(_ path: String, _ folder: String) -> Bool {
        !sameBytes(path, folder) && isSameOrInside(path, folder)
    }
}

/// CF's own path joining and URL path clean-up, which the answers must reproduce byte for byte.
package enum PathComponents {
    /// `_CFAppendPathComponent2`: joins with one `/` unless the left side already ends in one.
    static func append(_ left: String, _ right: String) -> String {
        if left.isEmpty { return right }
        return left.hasSuffix("/") ? left + right : left + "/" + right
    }

    /// RFC 3986 remove_dot_segments on a relative path, keeping empty segments (`//`) — what
    /// CFURL's `.path` does to the relative URLs of type lookups and arrays
    /// (docs/search-pattern.md, "Returned paths").
    package static func removingDotSegments(_ path: String) -> String {
        // Most paths have no `.` or `..` segment, and then nothing changes.
        hasDotSegment(path) ? resolvingDotSegments(path) : path
    }

    /// `removingDotSegments` without the shortcut: the algorithm itself.
    static func resolvingDotSegments(_ path: String) -> String {
        var input = PathText.components(path, omittingEmpty: false)
        let leadingSlash = path.utf8.first == UInt8(ascii: "/")
        if leadingSlash { input.removeFirst() }
        var out: [String] = []
        for (i, segment) in input.enumerated() {
            let isLast = i == input.count - 1
            if segment == "." {
                if isLast { out.append("") }
            } else if segment == ".." {
                if !out.isEmpty { out.removeLast() }
                if isLast { out.append("") }
            } else {
                out.append(segment)
            }
        }
        return (leadingSlash ? "/" : "") + out.joined(separator: "/")
    }

    /// Whether a `/`-separated segment of `path` is `.` or `..`.
    package static func hasDotSegment(_ path: String) -> Bool {
        path.utf8.withContiguousStorageIfAvailable(hasDotSegment) ?? Array(path.utf8).withUnsafeBufferPointer(hasDotSegment)
    }

    /// `hasDotSegment` over UTF-8 bytes.
    static func hasDotSegment(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        var start = 0
        while start < bytes.count {
            // A segment starts at `start`; only one that starts with a dot can be `.` or `..`.
            if bytes[start] == dot {
                let second = start + 1 < bytes.count ? bytes[start + 1] : slash
                if second == slash { return true }
                if second == dot && (start + 2 == bytes.count || bytes[start + 2] == slash) { return true }
            }
            guard let next = bytes[start...].firstIndex(of: slash) else { return false }
            start = next + 1
        }
        return false
    }
}
