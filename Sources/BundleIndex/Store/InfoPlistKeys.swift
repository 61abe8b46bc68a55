/// Dictionary keys that Info.plist files (and their `InfoPlist.strings`) use again and again,
/// numbered: a dictionary key found here is stored as its number, any other as its text
/// (docs/index-format.md, "property lists"). The first 64 take one byte. The numbers are part
/// of the index format: keys may be added at the end, never moved or removed, without a new
/// format version. The order follows how often the keys occur in the Info.plist files of the
/// real corpus (GNUstep's first) and in Apple's documented keys.
enum InfoPlistKeys {
    static let all: [String] = [
        // 0–63: one byte.
        "NSExecutable", "NOTE", "NSPrincipalClass", "NSMainNibFile",
        "CFBundleIdentifier", "CFBundleName", "CFBundleExecutable", "CFBundleVersion",
        "CFBundleShortVersionString", "CFBundleDevelopmentRegion", "CFBundleInfoDictionaryVersion",
        "CFBundlePackageType", "CFBundleSignature", "CFBundleIconFile", "CFBundleIcons", "CFBundleIconName",
        "CFBundleDisplayName", "CFBundleSupportedPlatforms", "CFBundleDocumentTypes", "CFBundleURLTypes",
        "CFBundleLocalizations", "CFBundleAllowMixedLocalizations", "CFBundleGetInfoString",
        "CFBundleHelpBookFolder", "CFBundleHelpBookName", "CFBundlePrimaryIcon", "CFBundleIconFiles",
        "CFBundleTypeName", "CFBundleTypeRole", "CFBundleTypeExtensions", "CFBundleTypeIconFile",
        "CFBundleURLName", "CFBundleURLSchemes", "GSMainMarkupFile", "NSMainStoryboardFile",
        "ApplicationDescription", "ApplicationName", "ApplicationRelease", "ApplicationIcon", "ApplicationURL",
        "Authors", "Copyright", "CopyrightDescription", "FullVersionID", "NSIcon", "NSRole", "NSTypes",
        "NSName", "NSHumanReadableName", "NSUnixExtensions", "NSDOSExtensions", "NSMIMETypes", "NSServices",
        "NSHumanReadableCopyright", "NSPrefPaneIconFile", "NSPrefPaneIconLabel", "GSBundleVersion",
        "GSBundleShortVersionString", "Classes", "URL", "LSMinimumSystemVersion", "LSRequiresIPhoneOS",
        "LSApplicationCategoryType", "LSItemContentTypes",
        // 64 and on: two bytes.
        "MinimumOSVersion", "DTCompiler", "DTPlatformBuild", "DTPlatformName", "DTPlatformVersion",
        "DTSDKBuild", "DTSDKName", "DTXcode", "DTXcodeBuild", "BuildMachineOSBuild", "UIDeviceFamily",
        "UIRequiredDeviceCapabilities", "UISupportedInterfaceOrientations",
        "UISupportedInterfaceOrientations~ipad", "UILaunchStoryboardName", "UIMainStoryboardFile",
        "UIApplicationSceneManifest", "UIApplicationSupportsMultipleScenes", "UISceneConfigurations",
        "UIWindowSceneSessionRoleApplication", "UISceneConfigurationName", "UISceneDelegateClassName",
        "UISceneStoryboardFile", "UIStatusBarStyle", "UIViewControllerBasedStatusBarAppearance",
        "UIBackgroundModes", "UIApplicationSupportsIndirectInputEvents", "UILaunchScreen",
        "UIFileSharingEnabled", "UTExportedTypeDeclarations", "UTImportedTypeDeclarations",
        "UTTypeIdentifier", "UTTypeConformsTo", "UTTypeDescription", "UTTypeTagSpecification",
        "UTTypeIconFile", "NSAppTransportSecurity", "NSAllowsArbitraryLoads", "NSCameraUsageDescription",
        "NSPhotoLibraryUsageDescription", "NSLocationWhenInUseUsageDescription", "NSMicrophoneUsageDescription",
        "NSContactsUsageDescription", "NSSupportsAutomaticGraphicsSwitching", "NSHighResolutionCapable",
        "NSDocumentClass", "NSExtension", "NSExtensionPointIdentifier", "NSExtensionPrincipalClass",
        "NSExtensionAttributes", "NSExtensions", "NSMessage", "NSPortName", "NSSendTypes", "NSReturnTypes",
        "NSMenuItem", "NSKeyEquivalent", "NSUserActivityTypes", "ITSAppUsesNonExemptEncryption",
        "LSSupportsOpeningDocumentsInPlace", "LSHandlerRank", "CFBundleTypeOSTypes", "CFBundleTypeMIMETypes",
        "NSVersion", "NSBuildVersion", "FreeDesktopCategories", "GSHelpType", "GSDesktopInstallationDomain",
        "default",
    ]

    /// The number of each key of `all`.
    static let numbers: [String: Int] = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($1, $0) })
}
