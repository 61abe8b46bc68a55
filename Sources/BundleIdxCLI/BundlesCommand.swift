import ArgumentParser
import BundleIdxCommon
import BundleIndex
import BundleIndexJSON

struct BundlesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundles",
        abstract: "List the indexed bundles.",
        discussion: """
        One line per bundle: path, layout, identifier. With --under, only bundles at or below \
        that directory.

        Example:
          bundleidx bundles --under Examples --json
        """
    )

    @OptionGroup var options: IndexOptions

    @Option(name: .long, help: "Only bundles at or below this directory.")
    var under: String?

    @Flag(name: .long, help: "Print a JSON array.")
    var json = false

    @Flag(name: [.customShort("0"), .long], help: "Print only the bundle paths, each ended by a NUL byte (for xargs -0).")
    var null = false

    func run() throws {
        let reader = try options.openReader()
        let bundles: [IndexedBundle]
        do { bundles = try reader.bundles(under: under) } catch { throw ExitStatus.reporting(error) }
        var rows: [JSONText] = []
        for b in bundles {
            if json {
                rows.append(.object([("path", .string(b.bundlePath)), ("layout", .string(b.layout.name)),
                                     ("resourcePath", .string(b.resourcePath)),
                                     ("identifier", b.bundleIdentifier.map(JSONText.string) ?? .null),
                                     ("localizations", JSONText.strings(b.localizations))]))
            } else {
                if null {
                    PlainOutput.emit(b.bundlePath, nullTerminated: true)
                } else {
                    PlainOutput.emit("\(b.bundlePath)\t\(b.layout.name)\t\(b.bundleIdentifier ?? "-")")
                }
            }
        }
        if json { print(JSONText.array(rows)) }
    }
}
