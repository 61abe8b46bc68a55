// The yardstick for a fresh `bundleidx query`: a program that answers the same lookup
// with Foundation's Bundle, built like the release CLI (static Swift runtime and Foundation).
//
//   FoundationLookup BUNDLE NAME [TYPE [SUBDIRECTORY]]      (an empty TYPE: none)
//
// Prints the path and exits 0, or exits 1 when Foundation finds nothing (as `bundleidx query`).
// Built fully static (`-static-executable`), the fastest start a Foundation program has here: a
// `-static-stdlib` build, like the full CLI's, starts about twice as slowly (docs/performance.md,
// "Fresh process").
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: FoundationLookup BUNDLE NAME [TYPE [SUBDIRECTORY]]\n".utf8))
    exit(2)
}
let type = arguments.count > 3 && !arguments[3].isEmpty ? arguments[3] : nil
let subdirectory = arguments.count > 4 ? arguments[4] : nil
guard let path = Bundle(path: arguments[1])?.path(forResource: arguments[2], ofType: type, inDirectory: subdirectory) else {
    exit(1)
}
print(path)
