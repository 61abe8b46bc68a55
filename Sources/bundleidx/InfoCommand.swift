import ArgumentParser
import BundleIndex
import BundleIndexJSON

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a bundle's Info.plist values and layout.",
        discussion: """
        Without KEY: a summary (path, layout, resource path, identifier, development \
        localization, localizations, search list) and every Info.plist key. With KEY: the \
        value object(forInfoDictionaryKey:) returns (localized when InfoPlist.strings has it).

        Examples:
          bundleidx info Examples/Phone.app
          bundleidx info com.example.phone CFBundleName --json
        """
    )

    @OptionGroup var options: IndexOptions

    @Argument(help: "Bundle path or bundle identifier.")
    var bundle: String

    @Argument(help: "One Info.plist key.")
    var key: String?

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @OptionGroup var search: ContextOptions

    func run() throws {
        let reader = try options.openReader()
        let b = try openBundle(reader, bundle, search.context)
        do {
            if let key {
                guard let value = try b.object(forInfoDictionaryKey: key) else { throw Exit.notFound }
                if json { print(JSONText(value)) } else { print(Self.plain(value)) }
                return
            }
            let info = b.infoDictionary
            if json {
                print(JSONText.render([
                    ("path", .string(b.bundlePath)), ("layout", .string(b.layout.name)),
                    ("resourcePath", .string(b.resourcePath)),
                    ("identifier", b.bundleIdentifier.map(JSONText.string) ?? .null),
                    ("developmentLocalization", b.developmentLocalization.map(JSONText.string) ?? .null),
                    ("localizations", JSONText.strings(b.localizations)),
                    ("searchList", JSONText.strings(b.languageSearchList)),
                    ("info", JSONText(.dictionary(info))), ("warnings", JSONText.strings(b.warnings)),
                ]))
                return
            }
            print("path: \(b.bundlePath)")
            print("layout: \(b.layout.name)")
            print("resourcePath: \(b.resourcePath)")
            print("identifier: \(b.bundleIdentifier ?? "-")")
            print("developmentLocalization: \(b.developmentLocalization ?? "-")")
            print("localizations: \(b.localizations.joined(separator: ", "))")
            print("searchList: \(b.languageSearchList.joined(separator: ", "))")
            for w in b.warnings { print("warning: \(w)") }
            for k in info.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                print("\(k) = \(Self.plain(info[k]!))")
            }
        } catch let e as ExitCode {
            throw e
        } catch {
            throw fail(error)
        }
    }

    static func plain(_ v: PropertyListValue) -> String {
        if case .string(let s) = v { return s }
        return JSONText(v).description
    }
}
