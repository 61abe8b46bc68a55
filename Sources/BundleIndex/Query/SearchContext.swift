/// The caller's side of a lookup: which rules (profile), which languages, which platform and
/// device. Everything a query needs besides the index.
public struct SearchContext: Sendable, Equatable {
    public enum Profile: String, Sendable, CaseIterable {
        /// swift-corelibs-foundation on Linux, exactly (SEARCH_PATTERN.md §4.4 "Linux result").
        case foundationLinux = "foundation-linux"
        /// Apple's documented search pattern with the user's languages and device (issue 3).
        case apple
    }

    public var profile: Profile
    /// Ordered preferred languages (BCP-47 or POSIX identifiers). Ignored by `foundationLinux`,
    /// where Foundation's user languages are always `["en"]` (§4.2).
    public var preferredLanguages: [String]

    /// The file-name suffixes this context recognises (§5).
    let suffixes: VariantSuffixes

    init(profile: Profile, preferredLanguages: [String], suffixes: VariantSuffixes) {
        self.profile = profile
        self.preferredLanguages = preferredLanguages
        self.suffixes = suffixes
    }

    /// Foundation on Linux: `-linux` platform variants, no device variants, one-language search
    /// list.
    public static let foundationLinux = SearchContext(profile: .foundationLinux, preferredLanguages: ["en"],
                                                      suffixes: .linux)
}
