import ArgumentParser
import BundleIdxCommon
import BundleIndex
import BundleIndexJSON

struct StringCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "string",
        abstract: "Find a localized string as NSLocalizedString does.",
        discussion: """
        BUNDLE is a bundle path or a CFBundleIdentifier. Prints the entry for KEY of the table \
        (Localizable unless --table) the bundle search pattern finds: the TABLE.strings a lookup \
        of TABLE with type strings returns, overridden by the TABLE.stringsdict found the same \
        way. Only that one file counts: a key missing from it is not looked for elsewhere. The \
        entries come from the index (build and watch read every strings table); nothing is parsed \
        here. --localization looks in the global folder, then that lproj only, like \
        CFBundleCopyLocalizedStringForLocalization. See docs/search-pattern.md, "Localized strings".

        A missing key prints nothing and exits as not found (Foundation would answer the key \
        itself, or its value: argument). A table too large to have been indexed is bad input.

        Examples:
          bundleidx string com.example.phone hello
          bundleidx string Examples/Phone.app hello --lang fr
          bundleidx string com.example.phone CFBundleName --table InfoPlist --json
        """
    )

    @OptionGroup var options: IndexOptions

    @Argument(help: "Bundle path or bundle identifier.")
    var bundle: String

    @Argument(help: "The key, as written in the table.")
    var key: String

    @Option(name: .long, help: "Table name (without .strings); default Localizable.")
    var table: String?

    @Option(name: .long, help: "Look in this lproj only (its name without .lproj), like forLocalization:.")
    var localization: String?

    @Flag(name: .long, help: "Print a JSON object instead of the bare string.")
    var json = false

    @Flag(name: [.customShort("0"), .customLong("null")], help: "End the string with a NUL byte instead of a newline.")
    var nullTerminated = false

    @OptionGroup var search: ContextOptions

    func validate() throws {
        for (label, value) in [("KEY", key), ("--table", table), ("--localization", localization)] {
            if let value, value.utf8.contains(0) { throw ValidationError("\(label) contains a NUL byte") }
        }
    }

    func run() throws {
        let reader = try options.openReader()
        let b = try openBundle(reader, bundle, search.context)
        let value: String?
        do {
            if let localization {
                value = try b.localizedStringEntry(forKey: key, table: table, forLocalization: localization)
            } else {
                value = try b.localizedStringEntry(forKey: key, table: table)
            }
        } catch { throw ExitStatus.reporting(error) }
        if json {
            print(JSONText.render([("bundle", .string(b.bundlePath)), ("table", .string(IndexedBundle.stringsTableName(table))),
                                   ("key", .string(key)), ("value", value.map(JSONText.string) ?? .null)]))
        } else if let value {
            PlainOutput.emit(value, nullTerminated: nullTerminated)
        }
        if value == nil { throw ExitStatus.notFound }
    }
}
