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

        // `_CFCreateLastPathComponent`, on the code units: a `/` followed by a combining mark
        // is one `Character` to Swift and still a slash to CF.
        var realName = name
        var subFromName: String?
        if let name, name.utf16.count >= 2 {
            let utf8 = name.utf8
            if let slash = utf8.lastIndex(of: UInt8(ascii: "/")) {
                let last = String(decoding: utf8[utf8.index(after: slash)...], as: UTF8.self)
                if slash > utf8.startIndex {
                    subFromName = String(decoding: utf8[..<slash], as: UTF8.self)
                    // "dir/": the directory name itself is the resource name.
                    realName = last.isEmpty ? subFromName : last
                } else {
                    realName = last
                }
            } else if Self.hasDrive(name) {
                // CF drops a DOS drive from a name without a slash, on every platform: "C:foo"
                // is "foo" (docs/search-pattern.md, "Lookup arguments").
                realName = String(decoding: utf8.dropFirst(2), as: UTF8.self)
            }
        }

        // CF tests the type's first code unit for a dot, not its first `Character`.
        let type = (type?.isEmpty ?? true) ? nil : type
        let typeHasDot = type?.utf8.first == UInt8(ascii: ".")
        if let realName, !realName.isEmpty {
            if let type { key = .name(typeHasDot ? realName + type : realName + "." + type) }
            else { key = .name(realName) }
        } else if let type {
            key = .type(typeHasDot ? String(decoding: type.utf8.dropFirst(), as: UTF8.self) : type)
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

    /// Whether CF takes the start of `name` (more than two code units, no slash) for a DOS
    /// drive and drops it (`_CFCreateLastPathComponent` with `_hasDrive`): an ASCII letter,
    /// then a colon.
    static func hasDrive(_ name: String) -> Bool {
        // The two bytes first: nearly every name fails there, before its length is counted (a
        // UTF-16 count walks a name that is not ASCII; this runs for every direct lookup).
        var bytes = name.utf8.makeIterator()
        guard let letter = bytes.next(), bytes.next() == UInt8(ascii: ":"),
              (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(letter) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(letter)
        else { return false }
        return name.utf16.count > 2
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
