import ArgumentParser
import BundleIdxCommon
import BundleIndex
import BundleIndexJSON

struct PathsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "paths",
        abstract: "List resources of a type, as Bundle.paths does.",
        discussion: """
        Prints one absolute path per line: the global directory's entries of that type, then \
        those of the first language folder and Base.lproj, then those of later folders for \
        types the first two do not have. Without --type, every entry of the global directory \
        and of the first language folder that has any.

        Examples:
          bundleidx paths Examples/Phone.app --type png
          bundleidx paths com.example.notes --type nib --localization de --json
        """
    )

    @OptionGroup var options: IndexOptions

    @Argument(help: "Bundle path or bundle identifier.")
    var bundle: String

    @Option(name: .long, help: "Resource type (extension); omit to list everything.")
    var type: String?

    @Option(name: .long, help: "Subdirectory of the resource directory.")
    var dir: String?

    @Option(name: .long, help: "Only this lproj besides the global entries, like forLocalization:.")
    var localization: String?

    @Flag(name: .long, help: "Print a JSON array.")
    var json = false

    @Flag(name: [.customShort("0"), .long], help: "End each value with a NUL byte instead of a newline (for xargs -0).")
    var null = false

    @OptionGroup var search: ContextOptions

    func run() throws {
        let reader = try options.openReader()
        let b = try openBundle(reader, bundle, search.context)
        let paths: [String]
        do {
            paths = try localization.map { try b.paths(forResourcesOfType: type, inDirectory: dir, forLocalization: $0) }
                ?? b.paths(forResourcesOfType: type, inDirectory: dir)
        } catch { throw ExitStatus.reporting(error) }
        if json { print(JSONText.strings(paths)) } else { for p in paths { PlainOutput.emit(p, nullTerminated: null) } }
    }
}
