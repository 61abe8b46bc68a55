import ArgumentParser

import Glibc

// Usage errors exit with 2 (documented in --help) instead of ArgumentParser's 64.
do {
    if let query = PlainQueryLine(arguments: CommandLine.arguments) {
        try query.run()   // a plain lookup skips ArgumentParser's start-up cost (see PlainQueryLine)
    } else {
        var command = try BundleIdx.parseAsRoot()
        try command.run()
    }
} catch let code as ExitCode {
    exit(code.rawValue)   // as BundleIdx.exit(withError:) does (no message), without its help machinery
} catch {
    if BundleIdx.exitCode(for: error) == .validationFailure {
        writeStderr(BundleIdx.fullMessage(for: error) + "\n")
        exit(2)
    }
    BundleIdx.exit(withError: error)
}
