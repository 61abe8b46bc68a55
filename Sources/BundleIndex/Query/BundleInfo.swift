/// What Foundation derives from a bundle's Info.plist and lproj folders (docs/search-pattern.md,
/// "Info.plist" and "Localizations") under one search context, computed once when a bundle is
/// opened.
struct BundleInfo: Sendable {
    let infoDictionary: [String: PropertyListValue]
    /// A non-empty string, else none (docs/search-pattern.md, "Development region and
    /// identifier").
    let developmentRegion: String?
    let identifier: String?
    /// `CFBundleLocalizations` (non-empty strings, in order), then the lproj names (byte order
    /// instead of readdir order, L-readdir-order), then the development region when `Base` is
    /// present and the region is not found in any spelling (docs/search-pattern.md, "The
    /// localization list").
    let localizations: [String]
    /// The language search list S (docs/search-pattern.md, "The language search list"): the
    /// folders searched after the global one, with
    /// Base.lproj read right after the first.
    let searchList: [String]

    /// Both borrowed: a copy of either retains and releases every field. `shared`, when given,
    /// keeps the apple profile's language search lists for other bundles of the same reader.
    init(record: borrowing BundleRecord, context: borrowing SearchContext, shared: SharedPlanParts? = nil) {
        var dict = Self.infoPlist(record, context)
        if context.profile == .apple { dict = InfoPlistOverrides(context: copy context).apply(to: dict) }
        BundleMetadata.fixUpNumericVersion(&dict)
        infoDictionary = dict
        if let s = dict["CFBundleDevelopmentRegion"]?.stringValue, !s.isEmpty {
            developmentRegion = s
        } else {
            developmentRegion = nil
        }
        identifier = dict["CFBundleIdentifier"]?.stringValue

        var list: [String] = []
        if case .array(let a)? = dict["CFBundleLocalizations"] {
            list = a.compactMap { $0.stringValue }.filter { !$0.isEmpty }
        }
        // Foundation on Linux lists lproj folders in readdir order (kept in the record);
        // the apple profile in byte order, the same on every file system (L-readdir-order).
        // (Without CFBundleLocalizations the list is the record's array itself, not a copy.)
        let lprojs = context.profile == .foundationLinux ? record.lprojs : record.lprojs.sorted(by: byteOrder)
        if list.isEmpty { list = lprojs } else { list += lprojs }
        if !list.isEmpty, let dev = developmentRegion, list.contains("Base"), !BundleMetadata.languageFound(dev, in: list) {
            list.append(dev)
        }
        if list.isEmpty, let dev = developmentRegion { list = [dev] }
        localizations = list

        switch context.profile {
        case .foundationLinux:
            // On Linux the matcher never matches: the development region, else the first of
            // en/English/en_US present, else "en".
            if let dev = developmentRegion {
                searchList = [dev]
            } else {
                searchList = [["en", "English", "en_US"].first(where: { list.contains($0) }) ?? "en"]
            }
        case .apple:
            if let shared {
                searchList = shared.searchList(localizations: list, developmentRegion: developmentRegion,
                                               preferences: context.preferredLanguages)
            } else {
                searchList = LanguageMatcher.bundleSearchList(localizations: list, developmentRegion: developmentRegion,
                                                              preferences: context.preferredLanguages)
            }
        }
    }

    /// Which Info.plist file the profile reads (docs/search-pattern.md, "Which Info.plist file
    /// is read").
    /// - foundation-linux: the canonical spelling `Info.plist` only (a lower-case `info.plist` is
    ///   found but cannot be opened on a case-sensitive file system, L-info-plist-case).
    /// - apple: the platform plist (`Info-macos.plist`, `Info-iphoneos.plist`) if the platform
    ///   has one, else GNUstep's `Info-gnustep.plist`, else `Info.plist` — each matched
    ///   case-insensitively and the matched file read.
    private static func infoPlist(_ record: BundleRecord, _ context: SearchContext) -> [String: PropertyListValue] {
        switch context.profile {
        case .foundationLinux:
            return record.infoPlists.first(where: { $0.name == "Info.plist" })?.dictionary ?? [:]
        case .apple:
            for name in applePlistNames(context.platform) {
                let matches = record.infoPlists.filter { $0.name.lowercased() == name }
                    .sorted { byteOrder($0.name, $1.name) }
                if let d = matches.compactMap(\.dictionary).first { return d }
            }
            return [:]
        }
    }

    /// The lower-cased names of the files the apple profile reads, in order of preference.
    private static func applePlistNames(_ platform: SearchContext.Platform) -> [String] {
        var names: [String] = []
        if platform == .macos { names.append("info-macos.plist") }
        if platform == .ios { names.append("info-iphoneos.plist") }
        return names + ["info-gnustep.plist", "info.plist"]
    }

    /// Whether `infoPlist` may read the file `name` under `context`: the record of a bundle
    /// opened for queries decodes only those (`BundleRecord.decode(_:path:forQueriesReading:)`).
    static func mayRead(infoPlistNamed name: String, _ context: SearchContext) -> Bool {
        mayRead(infoPlistNamed: name, profile: context.profile, platform: context.platform)
    }

    /// `mayRead(infoPlistNamed:_:)` with the two facts of the context it depends on, for a caller
    /// that would otherwise copy a whole context into its closure (an open).
    static func mayRead(infoPlistNamed name: String, profile: SearchContext.Profile, platform: SearchContext.Platform) -> Bool {
        switch profile {
        case .foundationLinux: return name == "Info.plist"
        case .apple: return applePlistNames(platform).contains(name.lowercased())
        }
    }

    /// `preferredLocalizations(from:forPreferences:)` (docs/search-pattern.md, "Preferred
    /// localizations").
    static func preferredLocalizations(from list: [String], preferences: [String]?, context: SearchContext) -> [String] {
        switch context.profile {
        case .foundationLinux:
            return list.first.map { [$0] } ?? ["en"]
        case .apple:
            return LanguageMatcher.preferredLocalizations(from: list, preferences: preferences ?? context.preferredLanguages)
        }
    }
}
