/// A resource query after CF's argument normalisation (`_CFBundleCopyFindResources`;
/// docs/search-pattern.md, "Lookup arguments" and "Subdirectories").
struct LookupRequest {
    enum Key: Equatable {
        /// `name.type`, or a bare name.
        case name(String)
        /// Type only: every entry whose start or end type matches.
        case type(String)
        /// Neither name nor type: all files.
        case all
    }

    let key: Key
    /// `subPath`, the name's own directory part, or both joined; nil when empty.
    let subdirectory: String?

    /// nil when `subPath` climbs above the resource directory (`..`, `../x`, `a/../..`).
    init?(name: String?, type: String?, subdirectory subPath: String?) {
        if let subPath, Self.climbsOut(subPath) { return nil }

        var realName = name
        var subFromName: String?
        if let name, name.utf16.count >= 2, let slash = name.lastIndex(of: "/") {
            let last = String(name[name.index(after: slash)...])
            if slash > name.startIndex {
                subFromName = String(name[..<slash])
                // "dir/": the directory name itself is the resource name.
                realName = last.isEmpty && name.index(after: slash) == name.endIndex ? subFromName : last
            } else {
                realName = last
            }
        }

        let type = (type?.isEmpty ?? true) ? nil : type
        if let realName, !realName.isEmpty {
            if let type { key = .name(type.hasPrefix(".") ? realName + type : realName + "." + type) }
            else { key = .name(realName) }
        } else if let type {
            key = .type(type.hasPrefix(".") ? String(type.dropFirst()) : type)
        } else {
            key = .all
        }

        let hasSub = !(subPath?.isEmpty ?? true)
        let hasSubFromName = !(subFromName?.isEmpty ?? true)
        switch (hasSub, hasSubFromName) {
        case (true, false): subdirectory = subPath
        case (false, true): subdirectory = subFromName
        case (true, true): subdirectory = PathComponents.append(subPath!, subFromName!)
        case (false, false): subdirectory = nil
        }
    }

    /// CF's depth walk (docs/search-pattern.md, "Subdirectories"): a leading empty component
    /// and `.` are skipped, `..` goes up.
    /// Scans the UTF-8 bytes: splitting the path into an array was a few per cent of a
    /// subdirectory lookup.
    static func climbsOut(_ path: String) -> Bool {
        path.withUTF8Bytes { bytes in
            let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
            var depth = 0
            var start = 0
            // Each component, empty ones included, as `split(omittingEmptySubsequences: false)` gives them.
            while start <= bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != slash { end += 1 }
                let length = end - start
                let isDot = length == 1 && bytes[start] == dot
                let isDotDot = length == 2 && bytes[start] == dot && bytes[start + 1] == dot
                if !(start == 0 && length == 0) && !isDot {
                    depth += isDotDot ? -1 : 1
                    if depth < 0 { return true }
                }
                start = end + 1
            }
            return false
        }
    }
}
