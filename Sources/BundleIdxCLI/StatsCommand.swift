import ArgumentParser
import BundleIdxCommon
import BundleIndex
import BundleIndexJSON

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show the index's counts, size and last build.",
        discussion: """
        Sizes are shown in binary units (KiB, MiB, GiB) and the last build's time as local \
        ISO 8601 time; --json gives the raw numbers (bytes, seconds since 1970, milliseconds).

        --detail also says where the bytes go: for each database of the index (meta, bundles, \
        identifiers, resources, strings, retired) its entries, their key and value bytes and the pages it \
        takes, and the same per kind of record in the resources and strings databases (directory \
        listings, InfoPlist.strings tables; strings tables and their chunks). It reads every \
        record, so it takes longer on a large index.

        Examples:
          bundleidx stats --json
          bundleidx stats --detail
        """
    )

    @OptionGroup var options: IndexOptions

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @Flag(name: .long, help: "Also show the bytes of each database and kind of record.")
    var detail = false

    func run() throws {
        let reader = try options.openReader()
        let s: IndexReader.Statistics
        var storage: [IndexReader.StorageUse] = []
        do {
            s = try reader.statistics()
            if detail { storage = try reader.storageUse() }
        } catch { throw ExitStatus.reporting(error) }
        if json {
            print(JSONText.render([
                ("path", .string(s.path)), ("formatVersion", .int(Int64(s.formatVersion))),
                ("bundles", .int(Int64(s.bundles))), ("resourceRecords", .int(Int64(s.resourceRecords))),
                ("stringsRecords", .int(Int64(s.stringsRecords))),
                ("indexBytes", .int(Int64(s.indexBytes))), ("roots", JSONText.strings(s.roots)),
                ("declaredBundles", JSONText.strings(s.declaredBundles)),
                ("builtAt", .int(Int64(s.builtAt))), ("buildMilliseconds", .int(Int64(s.buildMilliseconds))),
                ("generation", .int(Int64(s.generation))),
                ("watchState", s.watchState.map(JSONText.string) ?? .null),
                ("watcherRunning", .bool(s.watcherRunning)),
                ("watchedDirectories", .int(Int64(s.watchedDirectories))),
                ("unwatchedDirectories", .int(Int64(s.unwatchedDirectories))),
            ] + (detail ? [("storage", .array(storage.map { use in
                .object([("database", .string(use.database)), ("kind", .string(use.kind)),
                         ("entries", .int(Int64(use.entries))), ("payloadBytes", .int(Int64(use.payloadBytes))),
                         ("pageBytes", use.pageBytes.map { .int(Int64($0)) } ?? .null)])
            }))] : [])))
            return
        }
        print("index: \(s.path)")
        print("format version: \(s.formatVersion)")
        print("bundles: \(s.bundles)")
        print("resource records: \(s.resourceRecords)")
        print("strings records: \(s.stringsRecords)")
        print("index size: \(HumanUnits.byteCount(s.indexBytes))")
        print("roots: \(s.roots.joined(separator: ", "))")
        if !s.declaredBundles.isEmpty { print("bundles named with --bundle: \(s.declaredBundles.joined(separator: ", "))") }
        print("last build: \(HumanUnits.localISO8601(s.builtAt)), took \(HumanUnits.duration(milliseconds: s.buildMilliseconds))")
        print("generation: \(s.generation)")
        if let state = s.watchState {
            let running = s.watcherRunning ? "running, pid \(s.watcherPID)" : "not running"
            print("watcher: \(state) (\(running)); \(s.watchedDirectories) directories watched"
                  + (s.unwatchedDirectories > 0 ? ", \(s.unwatchedDirectories) unwatched (the watch limit reached, or a root gone; looked at again periodically)" : ""))
        }
        guard detail else { return }
        print("storage (keys and values; pages add LMDB's page headers and free space):")
        for use in storage {
            let label = use.kind == "all" ? use.database : "  " + use.kind
            let pages = use.pageBytes.map { ", \(HumanUnits.byteCount($0)) in pages" } ?? ""
            print("  \(label): \(use.entries) entries, \(HumanUnits.byteCount(use.payloadBytes))\(pages)")
        }
    }
}
