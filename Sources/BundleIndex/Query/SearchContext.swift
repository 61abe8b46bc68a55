/// The caller's side of a lookup: which rules (profile), which languages, which platform and
/// device. Everything a query needs besides the index.
///
/// ```swift
/// let exact = SearchContext.foundationLinux                              // what Foundation answers here
/// let ipad = SearchContext.apple(languages: ["fr-CA", "en"], platform: .ios, device: .ipad)
/// ```
public struct SearchContext: Sendable, Equatable {
    /// The rules a lookup follows (docs/search-pattern.md, "Profiles").
    public enum Profile: String, Sendable, CaseIterable {
        /// swift-corelibs-foundation on Linux, exactly (docs/search-pattern.md, "Foundation on
        /// Linux").
        case foundationLinux = "foundation-linux"
        /// Apple's documented search pattern with the user's languages, platform and device.
        case apple
    }

    /// The platform whose file and Info.plist variants apply (docs/search-pattern.md, "Platform
    /// and device variants" and "Platform and device keys").
    public enum Platform: String, Sendable, CaseIterable {
        /// Linux (`-linux` variants; what Foundation on Linux uses).
        case linux
        /// macOS (`-macos`).
        case macos
        /// iOS and iPadOS (`-iphoneos`; `~iphone`, `~ipad` device variants).
        case ios
        /// tvOS (`-tvos`, `~appletv`).
        case tvos
        /// watchOS (`-watchos`, `~applewatch`).
        case watchos

        /// The name in `-platform` file suffixes and `Key-platform` Info.plist keys.
        var suffixName: String {
            switch self {
            case .linux: return "linux"
            case .macos: return "macos"
            case .ios: return "iphoneos"
            case .tvos: return "tvos"
            case .watchos: return "watchos"
            }
        }
    }

    /// The device whose `~device` variants apply; effective only on iOS-family platforms.
    public enum Device: String, Sendable, CaseIterable {
        /// `~iphone`.
        case iphone
        /// `~ipad`.
        case ipad
        /// Answers as `iphone`, as on iOS.
        case ipod
        /// `~appletv` (implied by tvOS).
        case appletv
        /// `~applewatch` (implied by watchOS).
        case applewatch
    }

    /// The rules.
    public let profile: Profile
    /// Ordered preferred languages (BCP-47 or POSIX identifiers). `foundationLinux` ignores
    /// them: Foundation's user languages on Linux are always `["en"]` (docs/search-pattern.md,
    /// L-no-preferences).
    public let preferredLanguages: [String]
    /// The platform whose `-platform` file variants and `Key-platform` Info.plist keys apply.
    public let platform: Platform
    /// The effective device: `ipod` counts as `iphone`; tvOS and watchOS imply theirs; nil on
    /// macOS and Linux, where device modifiers mean nothing (docs/search-pattern.md, "Platform
    /// and device variants").
    public let device: Device?

    /// The file-name suffixes this context recognises (docs/search-pattern.md, "Platform and
    /// device variants").
    let suffixes: VariantSuffixes

    /// Foundation on Linux: `-linux` platform variants, no device variants, one-language search
    /// list, Info.plist keys as they are.
    public static let foundationLinux = SearchContext(profile: .foundationLinux, preferredLanguages: ["en"],
                                                      platform: .linux, device: nil, suffixes: .linux)

    /// The library's default: the apple profile with the environment's languages on Linux
    /// (read once per process).
    public static let userDefault: SearchContext = .apple()

    /// The documented bundle search pattern for `languages` (default: the environment's, see
    /// `environmentLanguages`) on `platform` with `device`.
    public static func apple(languages: [String]? = nil, platform: Platform = .linux, device: Device? = nil) -> SearchContext {
        let effective: Device?
        switch platform {
        case .ios: effective = device == .ipod ? .iphone : (device == .ipad || device == .iphone ? device : nil)
        case .tvos: effective = .appletv
        case .watchos: effective = .applewatch
        case .linux, .macos: effective = nil
        }
        let iosFamily = platform == .ios || platform == .tvos || platform == .watchos
        let products: [String]
        switch platform {
        case .ios: products = ["iphone", "ipad", "ipod"]
        case .tvos: products = ["appletv"]
        case .watchos: products = ["applewatch"]
        case .linux, .macos: products = []
        }
        let suffixes = VariantSuffixes(platform: "-" + platform.suffixName,
                                       product: "~" + (effective?.rawValue ?? ""),
                                       productSearch: iosFamily,
                                       supportedPlatforms: [platform.suffixName], supportedProducts: products)
        let langs = languages.flatMap { $0.isEmpty ? nil : $0 } ?? environmentLanguages()
        return SearchContext(profile: .apple, preferredLanguages: langs, platform: platform, device: effective,
                             suffixes: suffixes)
    }

    /// The user's languages on Linux: `LANGUAGE` (a colon-separated list), else the first set of
    /// `LC_ALL`, `LC_MESSAGES`, `LANG`; encodings and modifiers stripped (`en_GB.UTF-8@euro` →
    /// `en-GB`); `C`, `POSIX` or nothing at all mean `en`.
    public static func environmentLanguages() -> [String] {
        environmentLanguages(ProcessEnvironment.current())
    }

    /// `environmentLanguages()` over an explicit environment.
    static func environmentLanguages(_ environment: [String: String]) -> [String] {
        if let list = environment["LANGUAGE"], !list.isEmpty {
            let langs = list.split(separator: ":").compactMap { LocaleIdentifier.fromPOSIX(String($0)) }
            if !langs.isEmpty { return langs }
        }
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let v = environment[name], !v.isEmpty {
                return [LocaleIdentifier.fromPOSIX(v) ?? "en"]
            }
        }
        return ["en"]
    }
}
