import ArgumentParser
import BundleIdxCommon

import Glibc

// The full command line, `bundleidx-cli`: the `bundleidx` front program runs plain queries
// itself and hands every other command line to this one (Sources/bundleidx/main.swift).
// Usage errors exit with 2 (documented in --help) instead of ArgumentParser's 64.
StandardStreams.prepare()
RawArguments.requireUTF8()
do {
    var command = try BundleIdx.parseAsRoot()
    try command.run()
    StandardStreams.exit(0)
} catch let status as ExitStatus {
    StandardStreams.exit(status.code)   // whoever threw it has said why
} catch {
    switch BundleIdx.exitCode(for: error) {
    case .validationFailure:
        writeStderr(BundleIdx.fullMessage(for: error) + "\n")
        StandardStreams.exit(ExitStatus.usage.code)
    case .success:
        // `--help`, `help CMD`, `--version`: output like any command's, so help that cannot be
        // written (`> /dev/full`, a closed pipe) is said and exits 5, not 0 with nothing written.
        print(BundleIdx.fullMessage(for: error))
        StandardStreams.exit(0)
    default:
        BundleIdx.exit(withError: error)
    }
}
