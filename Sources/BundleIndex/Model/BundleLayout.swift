/// CoreFoundation's bundle "version" (docs/search-pattern.md, "Bundle layouts"): where
/// resources and Info.plist live.
public enum BundleLayout: UInt8, Sendable, CaseIterable {
    /// Old-style bundle or macOS framework: `B/Resources/` (also through a `Resources` symlink).
    case resources = 0
    /// Obsolete `B/Support Files/Resources/`.
    case supportFiles = 1
    /// macOS app, bundle or plug-in: `B/Contents/Resources/`.
    case contents = 2
    /// iOS-style flat bundle: resources at the root.
    case flat = 3

    /// The resource directory relative to the bundle root ("" for the root itself).
    public var resourceDirectory: String {
        switch self {
        case .resources: return "Resources"
        case .supportFiles: return "Support Files/Resources"
        case .contents: return "Contents/Resources"
        case .flat: return ""
        }
    }

    /// The directory that holds Info.plist, relative to the bundle root.
    public var infoPlistDirectory: String {
        switch self {
        case .resources: return "Resources"
        case .supportFiles: return "Support Files"
        case .contents: return "Contents"
        case .flat: return ""
        }
    }

    /// A short name for output: `resources`, `support-files`, `contents` or `flat`.
    public var name: String {
        switch self {
        case .resources: return "resources"
        case .supportFiles: return "support-files"
        case .contents: return "contents"
        case .flat: return "flat"
        }
    }

    /// `_CFBundleGetBundleVersionForURL`: decided from the names of the bundle root's
    /// directory and symlink entries. Wrapped bundles never validate on Linux
    /// (docs/search-pattern.md, L-no-wrapped-bundles), so the `Wrapper` rule always ends in the
    /// default order below.
    package static func detect(bundlePath: String, directoryLikeNames: [String]) -> BundleLayout {
        var foundResources = false, foundContents = false, foundSupport = false
        for name in directoryLikeNames {
            let lower = name.lowercased()
            if lower == "resources" { foundResources = true }
            else if lower == "contents" { foundContents = true }
            else if lower == "support files" { foundSupport = true }
        }
        // `hasFrameworkSuffix` is a case-sensitive test of the URL string.
        if bundlePath.hasSuffix(".framework") {
            if foundResources { return .resources }
            if foundContents { return .contents }
            if foundSupport { return .supportFiles }
            return .flat
        }
        if foundContents { return .contents }
        if foundResources { return .resources }
        if foundSupport { return .supportFiles }
        return .flat
    }
}
