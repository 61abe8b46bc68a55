import Glibc

/// The process's limit on open files (`RLIMIT_NOFILE`). `build` and `watch` hold a descriptor
/// for each folder they are listing and each file they are reading at once, and the watcher one
/// for each sync cookie it has taken until its batch commits (`ClaimedCookie.takenPerBatch`,
/// sized from `soft`). A service manager's soft limit is far below its hard one (systemd: 1 024
/// and 524 288), and a scan that meets `EMFILE` stops with that error (`FileSystem.isShortage`):
/// the two commands raise their soft limit to the hard one, as `ulimit -n hard` would.
package enum OpenFileLimit {
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

    /// The soft limit now; nil when it cannot be read.
    package static var soft: UInt64? {
        var limit = rlimit()
        return getrlimit(resource, &limit) == 0 ? UInt64(limit.rlim_cur) : nil
    }

    package static func raiseToHard() {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
    }
}
