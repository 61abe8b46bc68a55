import ArgumentParser
import BundleIndex
import BundleIndexJSON

import Glibc

struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Find a resource as Bundle.path(forResource:) does.",
        discussion: """
        BUNDLE is a bundle path or a CFBundleIdentifier. Prints the absolute path of the \
        resource the bundle search pattern finds: the global resource directory first, then \
        the language folders of the bundle's search list (the best match for your languages, \
        then Base.lproj, then its fallbacks and the development region), inside each folder \
        the most specific variant (name-platform~device.ext, name~device.ext, \
        name-platform.ext, then name.ext). `bundleidx localizations BUNDLE` shows the search \
        list. Exit status 1 when nothing matches.

        Examples:
          bundleidx query Examples/Phone.app icon --type png
          bundleidx query com.example.phone Localizable --type strings --lang fr-CA,en
          bundleidx query com.example.phone icon.png --platform ios --device ipad
          bundleidx query com.example.phone welcome --type txt --localization fr
          echo '{"bundle":"com.example.phone","op":"path","name":"icon.png"}' |
            bundleidx query --batch

        --batch reads one JSON request per line on standard input and writes one JSON answer \
        per line, in order, each before the next request is read (docs/batch.md). Each request \
        names its "bundle" and an "op": path, url, paths, localizations, dev, preferred, \
        preferredFrom, resourcePath, bundlePath, identifier, infoKeys, info, string. Paths in answers \
        are absolute, as a single query prints them; a bad line gets {"error": "..."}.
        """
    )

    @OptionGroup var options: IndexOptions

    @Argument(help: "Bundle path or bundle identifier.")
    var bundle: String?

    @Argument(help: "Resource name (may include a directory part, like Bundle's).")
    var name: String?

    @Option(name: .long, help: "Resource type (extension), e.g. png or tar.gz.")
    var type: String?

    @Option(name: .long, help: "Subdirectory of the resource directory to search.")
    var dir: String?

    @Option(name: .long, help: "Look in this lproj only (its name without .lproj), like forLocalization:.")
    var localization: String?

    @Flag(name: .long, help: "Print a JSON object instead of a bare path.")
    var json = false

    @Flag(name: .long, help: "Answer JSON queries from standard input, one per line.")
    var batch = false

    @OptionGroup var search: ContextOptions

    func validate() throws {
        if batch {
            if bundle != nil || name != nil { throw ValidationError("--batch reads its queries from standard input; give no BUNDLE or NAME") }
            return
        }
        guard bundle != nil else { throw ValidationError("missing BUNDLE (a bundle path or identifier)") }
        if name == nil && type == nil { throw ValidationError("give a resource NAME, --type, or both") }
        for (label, value) in [("NAME", name), ("--type", type), ("--dir", dir), ("--localization", localization)] {
            if let value, value.utf8.contains(0) { throw ValidationError("\(label) contains a NUL byte") }
        }
    }

    func run() throws {
        let reader = try options.openReader()
        let context = search.context
        if batch { return try runBatch(reader, context) }
        try ResourceQuery(bundle: bundle!, name: name, type: type, directory: dir, localization: localization, json: json)
            .answer(reader, context)
    }

    private func runBatch(_ reader: IndexReader, _ context: SearchContext) throws {
        do {
            try BatchQueryEngine(reader: reader, profile: context).serve(input: 0, output: 1)
        } catch {
            throw fail(error)
        }
    }
}

/// One lookup as `bundleidx query` answers it: prints the path (or a JSON object) and throws
/// `Exit.notFound` when nothing matches. Shared by `QueryCommand` and `PlainQueryLine`.
struct ResourceQuery {
    var bundle: String
    var name: String?
    var type: String?
    var directory: String?
    var localization: String?
    var json: Bool

    func answer(_ reader: IndexReader, _ context: SearchContext) throws {
        let b = try openBundle(reader, bundle, context)
        let hit: ResourceHit?
        do {
            if let localization {
                hit = try b.resource(named: name, ofType: type, inDirectory: directory, forLocalization: localization)
            } else {
                hit = try b.resource(named: name, ofType: type, inDirectory: directory)
            }
        } catch { throw fail(error) }
        let path = hit?.path
        if json {
            print(JSONText.render([("bundle", .string(b.bundlePath)), ("path", path.map(JSONText.string) ?? .null),
                                   ("isDirectory", .bool(hit?.isDirectory ?? false))]))
        } else if let path {
            PlainOutput.emit(path)
        }
        if hit == nil { throw Exit.notFound }
    }
}

/// Opens the bundle named on the command line, or exits 1 with a message.
func openBundle(_ reader: IndexReader, _ reference: String, _ context: SearchContext) throws -> IndexedBundle {
    let found: IndexedBundle?
    do { found = try reader.bundle(reference, context: context) } catch { throw fail(error) }
    guard let found else {
        printError(notIndexedMessage(reference, otherwise: " (see: bundleidx bundles)"))
        throw Exit.notFound
    }
    return found
}

