#if canImport(Glibc)
import Glibc
#endif

/// Runs `arguments[0]` with stdout and stderr on /dev/null and waits for it: a fresh process,
/// timed from fork to exit. Returns the exit status (or -1 when it could not start).
@discardableResult
func runProcess(_ arguments: [String]) -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid = pid_t()
    guard posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return (status >> 8) & 0xFF
}

/// The directory of this benchmark executable: the products it compares itself with
/// (bundleidx, HelloWorld, FoundationOnly) are built next to it by `swift build -c release`.
func productsDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard n > 0 else { return "." }
    let path = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
}
