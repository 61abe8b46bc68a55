// File-name analysis and layout detection, as pure functions (docs/search-pattern.md, "File
// names" and "Bundle layouts"; each test name starts with its section).
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("File names and layouts")
struct FileNameTests {
    @Test("Types: start and end types")
    func types() {
        #expect(ResourceFileName.endType("a.tar.gz") == "gz")
        #expect(ResourceFileName.startType("a.tar.gz") == "tar.gz")
        #expect(ResourceFileName.startType("a.png") == nil)
        #expect(ResourceFileName.endType(".hidden") == "hidden")
        #expect(ResourceFileName.endType("weird.") == nil)
        #expect(ResourceFileName.startType("a.b.") == "b.")
        #expect(ResourceFileName.types("LICENSE") == [])
    }

    @Test("Types: the byte test a listing is filtered with says what the start and end types say, for every name and type")
    func typeTestAgreesWithTypes() {
        // Every name and type of up to three of these pieces: dots first, last, doubled, alone.
        let pieces = [".", "a", "b", "..", "tar", "gz", "é"]
        var texts = pieces
        for _ in 0..<2 { texts += texts.flatMap { t in pieces.map { t + $0 } } }
        texts = Array(Set(texts)) + [""]
        var matches = 0
        for name in texts {
            let types = ResourceFileName.types(name)
            for type in texts {
                let said = Array(name.utf8).withUnsafeBytes { n in Array(type.utf8).withUnsafeBytes { ResourceFileName.hasType(n, $0) } }
                #expect(said == types.contains(type), "\(name) \(type)")
                if said { matches += 1 }
            }
        }
        #expect(matches > 200, "\(matches)")
    }

    @Test("Platform and device variants: on Linux only the rightmost '-' is a platform candidate, products are not parsed")
    func linuxVariants() {
        let linux = VariantSuffixes.linux
        #expect(linux.analyse("logo-linux.png").stripped == "logo.png")
        #expect(linux.analyse("a-linux.tar.gz").stripped == "a.tar.gz")
        #expect(linux.analyse("a-linux-b.png").stripped == nil)
        #expect(linux.analyse("-linux.png").stripped == nil, "index 0 is never inspected")
        #expect(linux.analyse("a-linux").stripped == "a")
        #expect(linux.analyse("icon~ipad.png").stripped == nil)
        #expect(linux.analyse("x-linux~ipad.png").stripped == nil)
    }

    @Test("Platform and device variants: on iOS the product before the dot, the platform before the product")
    func iosVariants() {
        let ipad = VariantSuffixes(platform: "-iphoneos", product: "~ipad", productSearch: true,
                                   supportedPlatforms: ["iphoneos"], supportedProducts: ["iphone", "ipad", "ipod"])
        #expect(ipad.analyse("icon~ipad.png") == (.product, "icon.png"))
        #expect(ipad.analyse("icon-iphoneos~ipad.png") == (.productAndPlatform, "icon.png"))
        #expect(ipad.analyse("icon-iphoneos.png") == (.platform, "icon.png"))
        #expect(ipad.analyse("icon~iphone.png").stripped == nil)
        #expect(ipad.analyse("a~iphone-iphoneos.png") == (.platform, "a~iphone.png"))
    }

    @Test("Variants in one directory: replacement order n-plat~dev > n~dev > n-plat > n")
    func replacementOrder() {
        #expect(VariantSuffixes.replaces(previous: .plain, with: .platform))
        #expect(VariantSuffixes.replaces(previous: .platform, with: .product))
        #expect(!VariantSuffixes.replaces(previous: .product, with: .platform))
        #expect(VariantSuffixes.replaces(previous: .product, with: .productAndPlatform))
        #expect(!VariantSuffixes.replaces(previous: .productAndPlatform, with: .product))
    }

    @Test("Bundle layouts: layout from the bundle root's directory and link names")
    func layouts() {
        #expect(BundleLayout.detect(bundlePath: "/x/A.app", directoryLikeNames: ["Contents"]) == .contents)
        #expect(BundleLayout.detect(bundlePath: "/x/A.app", directoryLikeNames: ["Resources", "Contents"]) == .contents)
        #expect(BundleLayout.detect(bundlePath: "/x/K.framework", directoryLikeNames: ["Resources", "Contents"]) == .resources)
        #expect(BundleLayout.detect(bundlePath: "/x/A.app", directoryLikeNames: ["resources"]) == .resources)
        #expect(BundleLayout.detect(bundlePath: "/x/A.app", directoryLikeNames: ["Support Files"]) == .supportFiles)
        #expect(BundleLayout.detect(bundlePath: "/x/A.app", directoryLikeNames: ["Images"]) == .flat)
    }

    @Test("Returned paths: dot segments are removed from relative URLs, empty segments kept")
    func dotSegments() {
        #expect(PathComponents.removingDotSegments("./Images/i.png") == "Images/i.png")
        #expect(PathComponents.removingDotSegments("Images/../x.png") == "x.png")
        #expect(PathComponents.removingDotSegments("/Images//i.png") == "/Images//i.png")
    }

    @Test("Returned paths: the shortcut for paths without dot segments changes no answer")
    func dotSegmentShortcut() {
        let segments = ["", ".", "..", "...", "a", ".a", "a.", "..a", "a..", "é"]
        var paths = [""]
        for _ in 0..<3 { paths += paths.flatMap { p in segments.map { p.isEmpty ? $0 : p + "/" + $0 } } }
        paths += paths.map { "/" + $0 }
        for path in Set(paths) {
            #expect(PathComponents.removingDotSegments(path) == PathComponents.resolvingDotSegments(path), "\(path)")
            if !PathComponents.hasDotSegment(path) {
                #expect(PathComponents.resolvingDotSegments(path) == path, "\(path)")
            }
        }
    }

    /// `_CFBundleCheckFileProductAndPlatform` written directly from docs/search-pattern.md,
    /// "Variants in one directory", on the whole path
    /// `prefix + component`: the reference for `classify(prefix:component:)`, which searches
    /// the two parts without joining them.
    private func referenceClassify(_ s: VariantSuffixes, path: String, lprojNameLength: Int) -> VariantKind {
        let u = Array(path.utf8)
        let range = Array(u[min(lprojNameLength, u.count)...])
        func has(_ needle: String) -> Bool {
            let n = Array(needle.utf8)
            guard n.count <= range.count else { return false }
            return (0...(range.count - n.count)).contains { range[$0..<($0 + n.count)].elementsEqual(n) }
        }
        var product = false, platform = false, wrong = false
        if range.contains(UInt8(ascii: "~")) && s.product.utf8.count != 1 {
            if has(s.product) { product = true } else { wrong = s.supportedProducts.contains { range.starts(with: Array($0.utf8)) } }
        }
        if !wrong && range.contains(UInt8(ascii: "-")) {
            if has(s.platform) { platform = true } else { wrong = s.supportedPlatforms.contains { range.starts(with: Array($0.utf8)) } }
        }
        if wrong { return .unmatched }
        return product ? (platform ? .productAndPlatform : .product) : (platform ? .platform : .plain)
    }

    @Test("Variants in one directory: the previous-path check and the stripped-name match agree with their plain definitions")
    func variantChecksWithoutJoining() {
        let contexts: [SearchContext] = [.foundationLinux, .apple(languages: ["en"], platform: .ios, device: .ipad),
                                         .apple(languages: ["en"], platform: .ios, device: .iphone),
                                         .apple(languages: ["en"], platform: .tvos), .apple(languages: ["en"], platform: .macos)]
        let prefixes = ["", "en.lproj/", "iphone/", "ipad~x/", "en.lproj/iphoneos-a/", "Base.lproj/s-ios/", "a-linux/"]
        let stems = ["Icon", "a-b", "-x", "x~", "iphone", "ipad-ios"]
        let suffixes = ["", "~ipad", "~iphone", "-iphoneos", "-iphoneos~ipad", "-linux", "-macos~ipad", "~appletv", "-tvos"]
        let types = ["", ".png", ".tar.gz", "."]
        var checked = 0
        for context in contexts {
            let s = context.suffixes
            for stem in stems {
                for suffix in suffixes {
                    for type in types {
                        let name = stem + suffix + type
                        for component in [name, name + "/"] {
                            for prefix in prefixes {
                                let lproj = prefix.hasSuffix(".lproj/") || prefix.contains(".lproj/")
                                    ? prefix.split(separator: "/")[0].utf16.count : 0
                                #expect(s.classify(prefix: prefix, component: component, lprojNameLength: lproj)
                                        == referenceClassify(s, path: prefix + component, lprojNameLength: lproj),
                                        "\(context.suffixes.platform) \(prefix)\(component)")
                                checked += 1
                            }
                        }
                        let (kind, stripped) = s.analyse(name)
                        #expect(s.variantKind(of: name, strippingTo: stem + type) == (stripped == stem + type ? kind : nil))
                        if let stripped {
                            #expect(s.variantKind(of: name, strippingTo: stripped) == kind)
                        }
                    }
                }
            }
        }
        #expect(checked > 5000)
    }
}
