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
    if BundleIdx.exitCode(for: error) == .validationFailure {
        writeStderr(BundleIdx.fullMessage(for: error) + "\n")
        StandardStreams.exit(ExitStatus.usage.code)
    }
    BundleIdx.exit(withError: error)
}
