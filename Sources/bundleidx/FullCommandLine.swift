import BundleIdxCommon

import Glibc

/// Where the full command line lives and how control passes to it.
///
/// `bundleidx-cli` is looked for beside this program (a build folder: `.build/release/`), then
/// in `../libexec/bundleidx/` (an installed tree: `tools/install` puts it there). The link
/// `/proc/self/exe` names this program's own file, whatever `PATH` or symbolic link started it.
enum FullCommandLine {
    static let programName = "bundleidx-cli"

    /// Replaces this process with `bundleidx-cli`, passing `arguments` on (its `argv[0]` stays
    /// `bundleidx`, the name users typed); returns only by exiting when that fails.
    static func run(_ arguments: [String]) -> Never {
        guard let folder = ownFolder() else {
            printError("cannot find \(programName): reading /proc/self/exe failed (\(String(cString: strerror(errno))))")
            exit(ExitStatus.other.code)
        }
        let candidates = [folder + "/" + programName, folder + "/../libexec/bundleidx/" + programName]
        for path in candidates where access(path, X_OK) == 0 {
            execute(path, arguments)
            printError("cannot run \(path): \(String(cString: strerror(errno)))")
            exit(ExitStatus.other.code)
        }
        printError("cannot find \(programName) (looked for \(candidates.joined(separator: " and "))); reinstall bundleidx")
        exit(ExitStatus.other.code)
    }

    /// The folder holding this program's file, nil when the kernel does not say.
    private static func ownFolder() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        return String(path[..<slash])
    }

    /// `execv(path, arguments)`; returns only when it fails (errno says why).
    private static func execute(_ path: String, _ arguments: [String]) {
        var argv = arguments.map { strdup($0) }
        argv.append(nil)
        execv(path, &argv)
    }
}
