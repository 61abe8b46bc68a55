// BuildUntilCommit MARKER INDEX ROOT... — builds ROOT... into INDEX and, with the whole write
// transaction ready, creates MARKER and waits forever instead of committing: StoreTests kills it
// there with SIGKILL to prove that an interrupted build changes nothing.
@_spi(Testing) import BundleIndex

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    print("usage: BuildUntilCommit MARKER INDEX ROOT...")
    exit(2)
}
let marker = arguments[1]
_ = try IndexBuilder.build(roots: Array(arguments[3...]), indexPath: arguments[2], progress: nil) {
    close(open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0o644))
    while true { sleep(60) }
}
