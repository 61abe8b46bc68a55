import Glibc

/// Where an index lives when nobody says: the one rule the CLI, the library and its users share.
///
/// ```swift
/// let index = try IndexReader(path: IndexLocation.default)
/// ```
public enum IndexLocation {
    /// `$BUNDLEIDX_INDEX`, else `$XDG_CACHE_HOME/bundleidx`, else `~/.cache/bundleidx`, where `~`
    /// is `$HOME` or, when that is unset or empty, the user's home folder from the password
    /// database. Empty variables count as unset. Read afresh on every call.
    public static var `default`: String {
        resolve(environment: ProcessEnvironment.current(), passwordHome: passwordDatabaseHome)
    }

    /// The rule of `default` over an explicit environment (tests).
    static func resolve(environment: [String: String], passwordHome: () -> String?) -> String {
        func value(_ name: String) -> String? {
            guard let v = environment[name], !v.isEmpty else { return nil }
            return v
        }
        if let explicit = value("BUNDLEIDX_INDEX") { return explicit }
        if let cache = value("XDG_CACHE_HOME") { return cache + "/bundleidx" }
        // Without HOME the index must not land in the current folder (where `./.cache` would be).
        let home = value("HOME") ?? passwordHome() ?? "/"
        return (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/.cache/bundleidx"
    }

    /// The home folder `getpwuid(getuid())` names, or nil.
    private static func passwordDatabaseHome() -> String? {
        guard let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir else { return nil }
        let home = String(cString: dir)
        return home.isEmpty ? nil : home
    }
}
