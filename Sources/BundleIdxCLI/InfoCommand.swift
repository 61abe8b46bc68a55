import ArgumentParser
import BundleIdxCommon
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

        Values are shown with control characters escaped on a terminal. With -0: the value of \
        KEY ended by a NUL byte, or without KEY every Info.plist key and its value, each ended \
        by a NUL (key, value, key, value…).

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

    @Flag(name: [.customShort("0"), .long], help: "End each value (and each key, without KEY) with a NUL byte instead of printing lines.")
    var null = false

    @OptionGroup var search: ContextOptions

    func run() throws {
        let reader = try options.openReader()
        let b = try openBundle(reader, bundle, search.context)
        do {
            if let key {
                guard let value = try b.object(forInfoDictionaryKey: key) else { throw ExitStatus.notFound }
                if json { print(JSONText(value)) } else { PlainOutput.emit(Self.plain(value), nullTerminated: null) }
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
            let keys = info.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            if null {
                for k in keys {
                    PlainOutput.emit(k, nullTerminated: true)
                    PlainOutput.emit(Self.plain(info[k]!), nullTerminated: true)
                }
                return
            }
            // Paths, names and values come from the bundle: escaped on a terminal.
            PlainOutput.emit("path: \(b.bundlePath)")
            PlainOutput.emit("layout: \(b.layout.name)")
            PlainOutput.emit("resourcePath: \(b.resourcePath)")
            PlainOutput.emit("identifier: \(b.bundleIdentifier ?? "-")")
            PlainOutput.emit("developmentLocalization: \(b.developmentLocalization ?? "-")")
            PlainOutput.emit("localizations: \(b.localizations.joined(separator: ", "))")
            PlainOutput.emit("searchList: \(b.languageSearchList.joined(separator: ", "))")
            for w in b.warnings { PlainOutput.emit("warning: \(w)") }
            for k in keys { PlainOutput.emit("\(k) = \(Self.plain(info[k]!))") }
        } catch let e as ExitStatus {
            throw e
        } catch {
            throw ExitStatus.reporting(error)
        }
    }

    static func plain(_ v: PropertyListValue) -> String {
        if case .string(let s) = v { return s }
        return JSONText(v).description
    }
}
