import BundleIdxCommon

import Glibc

// `bundleidx`, the program users run. A plain query line (PlainQueryLine) is answered here, in
// a small process that links neither Foundation nor ArgumentParser, so a fresh lookup costs
// little more than starting a program (docs/performance.md, "Fresh process"). Every other
// command line — other commands, other options, help, usage errors — is handed unchanged to the
// full command line, `bundleidx-cli`, which replaces this process (FullCommandLine).
StandardStreams.prepare()
RawArguments.requireUTF8()
let arguments = CommandLine.arguments
if let line = PlainQueryLine(arguments: arguments) {
    do {
        try line.run()
    } catch {
        StandardStreams.exit(error.code)
    }
}
FullCommandLine.run(arguments)
