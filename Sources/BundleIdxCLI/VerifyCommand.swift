import ArgumentParser
import BundleIdxCommon
import BundleIndex

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Compare the index with a fresh scan.",
        discussion: """
        Scans ROOT... (default: every root the index was built from) and compares each \
        bundle's records with the ones a build would write now. Prints one line per \
        difference; exit status 1 when there is any.

        Example:
          bundleidx verify Examples
        """
    )

    @OptionGroup var options: IndexOptions

    @Argument(help: ArgumentHelp("Roots to compare (default: the index's roots).", valueName: "root"))
    var roots: [String] = []

    func run() throws {
        let differences: [IndexVerifier.Difference]
        do {
            installCrashGuard(options.resolvedPath)
            differences = try IndexVerifier.verify(indexPath: options.resolvedPath, roots: roots.isEmpty ? nil : roots)
        } catch { throw ExitStatus.reporting(error) }
        for d in differences { print(d) }
        if !differences.isEmpty {
            printError("\(differences.count) difference(s) between the index and the disk")
            throw ExitStatus.notFound
        }
        print("index matches the disk")
    }
}
