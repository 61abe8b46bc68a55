@_spi(Engine) import BundleIndexCore
import BundleIndexJSON

import Glibc

/// The usual shape of a query command line, recognised without ArgumentParser:
/// `bundleidx query BUNDLE NAME` plus any of `--index`, `--profile`, `--type`, `--dir`,
/// `--localization`, `--lang`, `--platform`, `--device` (each at most once, followed by its value)
/// and `--json`, in any order; and `bundleidx query --batch` with the same context options.
///
/// Why: this is what the `bundleidx` front program answers itself, in a process that links
/// neither Foundation nor ArgumentParser (docs/performance.md, "Fresh process"); everything
/// else is handed to the full command line, `bundleidx-cli`. In a fresh process ArgumentParser's
/// first parse alone costs ~2 ms — ten times the lookup — reflecting over every option.
///
/// Anything else returns nil and goes to the full command line, so usage errors and help read
/// exactly as they do there: help and version flags, other options, `--option=value`, `--`, an
/// empty value or one that starts with "-", a repeated option, an unknown profile, platform or
/// device, a context option with `--profile foundation-linux`, a missing NAME. CLITests run the
/// same queries both ways.
package struct PlainQueryLine {
    package let index: String?
    package let context: SearchContext
    /// nil for `--batch`: the lookups come from standard input.
    package let query: ResourceQuery?
    package let json: Bool

    package init?(arguments: [String]) {
        guard arguments.count > 1, arguments[1] == "query" else { return nil }
        var index, profileName, type, directory, localization, languages, platformName, deviceName: String?
        var positionals: [String] = []
        var json = false, batch = false
        var rest = arguments.dropFirst(2)
        // A switch over literals rather than a Set of names: the process's first Set<String>
        // instantiates its metadata through a conformance scan (~0.1 ms in perf).
        while let token = rest.popFirst() {
            let taken: Bool
            switch token {
            case "--index": taken = Self.take(&index, from: &rest)
            case "--profile": taken = Self.take(&profileName, from: &rest)
            case "--type": taken = Self.take(&type, from: &rest)
            case "--dir": taken = Self.take(&directory, from: &rest)
            case "--localization": taken = Self.take(&localization, from: &rest)
            case "--lang": taken = Self.take(&languages, from: &rest)
            case "--platform": taken = Self.take(&platformName, from: &rest)
            case "--device": taken = Self.take(&deviceName, from: &rest)
            case "--json":
                taken = !json
                json = true
            case "--batch":
                taken = !batch
                batch = true
            default:
                taken = Self.isPlainValue(token)
                positionals.append(token)
            }
            guard taken else { return nil }
        }
        if batch {
            // Anything more is a usage error the full command line words.
            guard positionals.isEmpty, type == nil, directory == nil, localization == nil, !json else { return nil }
        } else {
            guard positionals.count == 2 else { return nil }
        }
        // The spellings ArgumentParser accepts for the enums: their raw values.
        var profile = CommandLineContext.defaultProfile, platform = CommandLineContext.defaultPlatform
        var device: SearchContext.Device?
        if let profileName {
            guard let named = SearchContext.Profile(rawValue: profileName) else { return nil }
            profile = named
        }
        if let platformName {
            guard let named = SearchContext.Platform(rawValue: platformName) else { return nil }
            platform = named
        }
        if let deviceName {
            guard let named = SearchContext.Device(rawValue: deviceName) else { return nil }
            device = named
        }
        // foundation-linux takes no context options: the full command line says so.
        if profile == .foundationLinux && (languages != nil || platformName != nil || device != nil) { return nil }
        context = CommandLineContext.context(profile: profile, languages: languages.map { [$0] } ?? [],
                                             platform: platform, device: device)
        self.index = index
        self.json = json
        query = batch ? nil : ResourceQuery(bundle: positionals[0], name: positionals[1], type: type,
                                            directory: directory, localization: localization)
    }

    /// Stores the value that follows an option; false when the option was given before or its
    /// value is not plain (the full command line decides those).
    private static func take(_ slot: inout String?, from rest: inout ArraySlice<String>) -> Bool {
        guard slot == nil, let value = rest.popFirst(), isPlainValue(value) else { return false }
        slot = value
        return true
    }

    /// A token ArgumentParser would take as a value whatever the options: ones that are empty or
    /// start with "-" (options, negative numbers, "-", "--") are left to it.
    private static func isPlainValue(_ token: String) -> Bool {
        !token.isEmpty && !token.hasPrefix("-")
    }

    /// What `bundleidx query` does for this line: `ResourceQuery.answer`, or the batch protocol.
    /// It ends the process: with the answer written, the exit status is all that is left, and
    /// releasing the reader first (its bundle, caches and transactions, then unmapping the
    /// index) was ~10 % of a fresh query process's CPU (perf), work the exit does anyway. Only
    /// its read transactions are ended, which frees its slots in the reader table; the exit
    /// would not (docs/reliability.md, "Dead readers").
    package func run() throws(ExitStatus) -> Never {
        let reader = try openIndexReader(at: index ?? IndexLocation.default)
        guard let query else { try serveBatch(reader, context) }
        let status: Int32
        do {
            try query.answer(reader, context, json: json)
            status = 0
        } catch {
            status = error.code
        }
        reader.endIdleReads()
        withExtendedLifetime(reader) { StandardStreams.exit(status) }
    }
}

/// `bundleidx query --batch`: one JSON request per line of standard input, one answer per line
/// of standard output (docs/batch.md). At the end of the input the process exits (status 0)
/// without returning: the engine has opened a bundle per distinct "bundle" of the input, each
/// with its remembered answers, and freeing them all one by one cost 15–20 % of a 2 000-line
/// batch (perf) for memory the exit returns anyway. Answers are written with write(2), so
/// nothing waits in a buffer.
package func serveBatch(_ reader: IndexReader, _ context: SearchContext) throws(ExitStatus) -> Never {
    let engine = BatchQueryEngine(reader: reader, profile: context)
    do {
        try engine.serve(input: 0, output: 1)
    } catch {
        throw .reporting(error)
    }
    // Held to the exit: a temporary engine would be released (and all it opened freed) first.
    reader.endIdleReads()
    withExtendedLifetime(engine) { exit(0) }
}

/// One lookup as `bundleidx query` makes it: the bundle (by path or identifier), then the
/// resource, as `Bundle.path(forResource:ofType:inDirectory:forLocalization:)`.
package struct ResourceQuery {
    package var bundle: String
    package var name: String?
    package var type: String?
    package var directory: String?
    package var localization: String?

    package init(bundle: String, name: String?, type: String?, directory: String?, localization: String?) {
        self.bundle = bundle
        self.name = name
        self.type = type
        self.directory = directory
        self.localization = localization
    }

    /// The opened bundle and what the lookup found in it (nil: nothing); a bundle that is not
    /// in the index, or an index that fails, is reported and thrown.
    package func find(in reader: IndexReader,
                      _ context: SearchContext) throws(ExitStatus) -> (bundle: IndexedBundle, hit: ResourceHit?) {
        let b = try openBundle(reader, bundle, context)
        do {
            if let localization {
                return (b, try b.resource(named: name, ofType: type, inDirectory: directory, forLocalization: localization))
            }
            return (b, try b.resource(named: name, ofType: type, inDirectory: directory))
        } catch {
            throw .reporting(error)
        }
    }

    /// Prints what the lookup found — the path, or with `json` an object — and throws
    /// `.notFound` when nothing matches.
    package func answer(_ reader: IndexReader, _ context: SearchContext, json: Bool) throws(ExitStatus) {
        let (b, hit) = try find(in: reader, context)
        let path = hit?.path
        if json {
            print(JSONText.render([("bundle", .string(b.bundlePath)), ("path", path.map(JSONText.string) ?? .null),
                                   ("isDirectory", .bool(hit?.isDirectory ?? false))]))
        } else if let path {
            PlainOutput.emit(path)
        }
        if hit == nil { throw .notFound }
    }
}

/// The search context a command line asks for, with the defaults `--help` names.
package enum CommandLineContext {
    package static let defaultProfile = SearchContext.Profile.apple
    package static let defaultPlatform = SearchContext.Platform.linux

    /// `languages` may hold comma-separated lists; none means the environment's ($LANGUAGE, ...).
    package static func context(profile: SearchContext.Profile, languages: [String] = [],
                               platform: SearchContext.Platform = defaultPlatform,
                               device: SearchContext.Device? = nil) -> SearchContext {
        switch profile {
        case .foundationLinux: return .foundationLinux
        case .apple:
            let langs = languages.flatMap { $0.split(separator: ",").map { trimmingSpaces($0) } }.filter { !$0.isEmpty }
            return .apple(languages: langs.isEmpty ? nil : langs, platform: platform, device: device)
        }
    }

    private static func trimmingSpaces(_ text: Substring) -> String {
        var s = text
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
