import ArgumentParser
import BundleIdxCommon
import BundleIndex

import Glibc

struct BundleIdx: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bundleidx",
        abstract: "Index Apple-style bundles; answer Bundle's lookups from the index.",
        discussion: """
        bundleidx scans bundle trees (.app, .framework, .bundle, .plugin, ...) into a \
        persistent LMDB index and answers Bundle's resource search pattern with a few key reads.

        Examples:
          bundleidx build Examples
          bundleidx query Examples/Phone.app icon --type png

        The index is --index PATH when given, else $BUNDLEIDX_INDEX, else \
        $XDG_CACHE_HOME/bundleidx, else ~/.cache/bundleidx. Every command that reads or writes \
        an index takes --index.

        Exit status, the same for every command:
          0  success (a lookup found something)
          1  not found (no such resource or bundle; verify: differences)
          2  usage error
          3  index error (missing, not an index, other format version, damaged)
          4  bad input (a root that is not a directory, a malformed query)
          5  other failures (a system call, unwritable output, a sync that timed out)
        """,
        subcommands: [BuildCommand.self, QueryCommand.self, StringCommand.self, PathsCommand.self, LocalizationsCommand.self, BundlesCommand.self,
                      InfoCommand.self, StatsCommand.self, WatchCommand.self, SyncCommand.self, VerifyCommand.self]
    )
}

struct IndexOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The index directory.", discussion:
        "Default: $BUNDLEIDX_INDEX, else $XDG_CACHE_HOME/bundleidx, else ~/.cache/bundleidx.",
        valueName: "path"))
    var index: String?

    var resolvedPath: String { Self.resolvedPath(index) }

    /// `--index` when given, else the library's default location (the order --help lists).
    static func resolvedPath(_ index: String?) -> String { index ?? IndexLocation.default }

    func openReader() throws -> IndexReader { try Self.openReader(at: resolvedPath) }

    static func openReader(at path: String) throws -> IndexReader { try openIndexReader(at: path) }
}

/// `x` with `digits` decimals (no Foundation needed for one number).
func fixed(_ x: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = Int((x * scale).rounded())
    let whole = scaled / Int(scale), frac = abs(scaled % Int(scale))
    guard digits > 0 else { return String(whole) }
    let f = String(frac)
    return "\(whole).\(String(repeating: "0", count: digits - f.count))\(f)"
}

extension SearchContext.Profile: ExpressibleByArgument {}
extension SearchContext.Platform: ExpressibleByArgument {}
extension SearchContext.Device: ExpressibleByArgument {}

/// How a query is answered: profile, languages, platform, device.
struct ContextOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Search rules: apple (the documented pattern for your languages and device) or foundation-linux (exactly what Foundation answers on Linux).",
        valueName: "profile"))
    var profile = Self.defaultProfile

    @Option(name: .customLong("lang"), help: ArgumentHelp(
        "Preferred languages, most preferred first (comma-separated or repeated), e.g. en-GB,fr.",
        discussion: "Default: $LANGUAGE (a colon-separated list), else $LC_ALL, $LC_MESSAGES or $LANG with encoding and modifier stripped (en_GB.UTF-8@euro → en-GB); C, POSIX or nothing mean en. The foundation-linux profile ignores languages.",
        valueName: "languages"))
    var languages: [String] = []

    @Option(name: .long, help: ArgumentHelp("Platform whose -platform variants and Info.plist keys apply: linux, macos, ios, tvos, watchos.", valueName: "platform"))
    var platform = Self.defaultPlatform

    @Option(name: .long, help: ArgumentHelp("Device whose ~device variants apply (ios: iphone, ipad, ipod); ignored on linux and macos.", valueName: "device"))
    var device: SearchContext.Device?

    func validate() throws {
        if profile == .foundationLinux && (!languages.isEmpty || platform != .linux || device != nil) {
            throw ValidationError("--lang, --platform and --device apply to --profile apple; foundation-linux is fixed")
        }
    }

    static let defaultProfile = CommandLineContext.defaultProfile
    static let defaultPlatform = CommandLineContext.defaultPlatform

    var context: SearchContext {
        CommandLineContext.context(profile: profile, languages: languages, platform: platform, device: device)
    }
}
