import Glibc

/// `build` and `watch` hold a descriptor for each folder they are listing and each file they are
/// reading at once, and the watcher one for each sync cookie it has taken until its batch
/// commits. A service manager's soft limit on open files is far below its hard one (systemd:
/// 1 024 and 524 288), and a scan that meets `EMFILE` takes the folder for unreadable. The two
/// commands raise their soft limit to the hard one, as `ulimit -n hard` would.
enum OpenFileLimit {
    static func raiseToHard() {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
    }
}
