import ArgumentParser
import BundleIndex

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show counts, size, format version and build time of the index.",
        discussion: "Example:\n  bundleidx stats --json"
    )

    @OptionGroup var options: IndexOptions

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func run() throws {
        let reader = try options.openReader()
        let s: IndexStatistics
        do { s = try reader.statistics() } catch { throw fail(error) }
        if json {
            print(JSONText.render([
                ("path", .string(s.path)), ("formatVersion", .int(Int64(s.formatVersion))),
                ("bundles", .int(Int64(s.bundles))), ("resourceRecords", .int(Int64(s.resourceRecords))),
                ("indexBytes", .int(Int64(s.indexBytes))), ("roots", JSONText.strings(s.roots)),
                ("builtAt", .int(Int64(s.builtAt))), ("buildMilliseconds", .int(Int64(s.buildMilliseconds))),
                ("generation", .int(Int64(s.generation))),
            ]))
            return
        }
        print("index: \(s.path)")
        print("format version: \(s.formatVersion)")
        print("bundles: \(s.bundles)")
        print("resource records: \(s.resourceRecords)")
        print("index size: \(s.indexBytes) bytes")
        print("roots: \(s.roots.joined(separator: ", "))")
        print("last build: \(s.builtAt) (unix time), \(s.buildMilliseconds) ms")
        print("generation: \(s.generation)")
    }
}
