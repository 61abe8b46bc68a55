import ArgumentParser
import BundleIdxCommon
import BundleIndex
import BundleIndexJSON

struct LocalizationsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "localizations",
        abstract: "Show a bundle's localizations and search list.",
        discussion: """
        The search list is the order of language folders a lookup reads after the global \
        resources (Base.lproj comes right after the first one). Use it to see why a localized \
        resource is or is not found. Names read from the bundle are shown with control \
        characters escaped on a terminal; -0 prints only the localizations, each ended by a NUL.

        Examples:
          bundleidx localizations com.example.phone --lang en-GB
          bundleidx localizations Examples/Notes.app --lang ja --json
        """
    )

    @OptionGroup var options: IndexOptions

    @Argument(help: "Bundle path or bundle identifier.")
    var bundle: String

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @Flag(name: [.customShort("0"), .long], help: "Print only the localizations, each ended by a NUL byte (for xargs -0).")
    var null = false

    @OptionGroup var search: ContextOptions

    func run() throws {
        let reader = try options.openReader()
        let context = search.context
        let b = try openBundle(reader, bundle, context)
        if json {
            print(JSONText.render([
                ("localizations", JSONText.strings(b.localizations)),
                ("developmentLocalization", b.developmentLocalization.map(JSONText.string) ?? .null),
                ("preferredLanguages", JSONText.strings(context.preferredLanguages)),
                ("searchList", JSONText.strings(b.languageSearchList)),
                ("preferredLocalizations", JSONText.strings(b.preferredLocalizations)),
            ]))
            return
        }
        if null {
            for name in b.localizations { PlainOutput.emit(name, nullTerminated: true) }
            return
        }
        // lproj names come from the file system: escaped on a terminal like every plain value.
        PlainOutput.emit("localizations: \(b.localizations.joined(separator: ", "))")
        PlainOutput.emit("development localization: \(b.developmentLocalization ?? "-")")
        PlainOutput.emit("preferred languages (\(context.profile.rawValue)): \(context.preferredLanguages.joined(separator: ", "))")
        PlainOutput.emit("search list: \(b.languageSearchList.joined(separator: ", "))")
        PlainOutput.emit("lookup order: " + b.lookupOrder.map { $0.isEmpty ? "global" : $0 }.joined(separator: ", "))
    }
}
