import ArgumentParser
import BundleIndex

/// The usual shape of a query command line, recognised without ArgumentParser:
/// `bundleidx query BUNDLE NAME` plus any of `--index`, `--profile`, `--type`, `--dir`,
/// `--localization` (each at most once, followed by its value) and `--json`, in any order.
///
/// Why: in a fresh process, ArgumentParser's first parse costs ~2 ms — ten times the lookup —
/// because it reflects over every option of the root, of `query` and of its completion-script
/// check, and each step is a first use of Swift type metadata and of protocol conformances that
/// the runtime finds by scanning every conformance record in the binary (perf, see
/// docs/performance-notes.md, "Fresh-process start-up").
///
/// Anything else returns nil and goes through ArgumentParser as before: help and version flags,
/// other options (`--lang`, `--batch`, ...), `--option=value`, `--`, an empty value or one that
/// starts with "-", a repeated option, an unknown profile, a missing NAME. So usage errors and
/// help read exactly as they did; CLITests run the same queries through both paths.
struct PlainQueryLine {
    let index: String?
    let profile: SearchContext.Profile
    let query: ResourceQuery

    init?(arguments: [String]) {
        guard arguments.count > 1, arguments[1] == "query" else { return nil }
        var index, profileName, type, directory, localization: String?
        var positionals: [String] = []
        var json = false
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
            case "--json":
                taken = !json
                json = true
            default:
                taken = Self.isPlainValue(token)
                positionals.append(token)
            }
            guard taken else { return nil }
        }
        guard positionals.count == 2 else { return nil }
        if let profileName {
            // The same conversion ArgumentParser applies to an `ExpressibleByArgument` enum.
            guard let profile = SearchContext.Profile(argument: profileName) else { return nil }
            self.profile = profile
        } else {
            profile = ContextOptions.defaultProfile
        }
        self.index = index
        query = ResourceQuery(bundle: positionals[0], name: positionals[1], type: type,
                              directory: directory, localization: localization, json: json)
    }

    /// Stores the value that follows an option; false when the option was given before or its
    /// value is not plain (ArgumentParser decides those).
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

    /// What `QueryCommand.run` does for this command line (its validation has nothing to reject).
    func run() throws {
        let reader = try IndexOptions.openReader(at: IndexOptions.resolvedPath(index))
        try query.answer(reader, ContextOptions.context(profile: profile))
    }
}
