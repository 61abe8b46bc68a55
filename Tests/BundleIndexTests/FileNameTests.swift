// §5 file-name analysis and §1 layout detection, as pure functions.
import Testing
@testable import BundleIndex

@Suite("File names and layouts")
struct FileNameTests {
    @Test("§5 start and end types")
    func types() {
        #expect(ResourceFileName.endType("a.tar.gz") == "gz")
        #expect(ResourceFileName.startType("a.tar.gz") == "tar.gz")
        #expect(ResourceFileName.startType("a.png") == nil)
        #expect(ResourceFileName.endType(".hidden") == "hidden")
        #expect(ResourceFileName.endType("weird.") == nil)
        #expect(ResourceFileName.startType("a.b.") == "b.")
        #expect(ResourceFileName.types("LICENSE") == [])
    }

    @Test("§5 Linux: only the rightmost '-' is a platform candidate, products are not parsed")
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

    @Test("§5 iOS: product before the dot, platform before the product")
    func iosVariants() {
        let ipad = VariantSuffixes(platform: "-iphoneos", product: "~ipad", productSearch: true,
                                   supportedPlatforms: ["iphoneos"], supportedProducts: ["iphone", "ipad", "ipod"])
        #expect(ipad.analyse("icon~ipad.png") == (.product, "icon.png"))
        #expect(ipad.analyse("icon-iphoneos~ipad.png") == (.productAndPlatform, "icon.png"))
        #expect(ipad.analyse("icon-iphoneos.png") == (.platform, "icon.png"))
        #expect(ipad.analyse("icon~iphone.png").stripped == nil)
        #expect(ipad.analyse("a~iphone-iphoneos.png") == (.platform, "a~iphone.png"))
    }

    @Test("§6 replacement order n-plat~dev > n~dev > n-plat > n")
    func replacementOrder() {
        #expect(VariantSuffixes.replaces(previous: .plain, with: .platform))
        #expect(VariantSuffixes.replaces(previous: .platform, with: .product))
        #expect(!VariantSuffixes.replaces(previous: .product, with: .platform))
        #expect(VariantSuffixes.replaces(previous: .product, with: .productAndPlatform))
        #expect(!VariantSuffixes.replaces(previous: .productAndPlatform, with: .product))
    }

    @Test("§1 layout from the bundle root's directory and link names")
    func layouts() {
        #expect(BundleLayout.detect(bundlePath: "/x/A.app", directoryLikeNames: ["Contents"]) == .contents)
        #expect(BundleLayout.detect(bundlePath: "/x/A.app", directoryLikeNames: ["Resources", "Contents"]) == .contents)
        #expect(BundleLayout.detect(bundlePath: "/x/K.framework", directoryLikeNames: ["Resources", "Contents"]) == .resources)
        #expect(BundleLayout.detect(bundlePath: "/x/A.app", directoryLikeNames: ["resources"]) == .resources)
        #expect(BundleLayout.detect(bundlePath: "/x/A.app", directoryLikeNames: ["Support Files"]) == .supportFiles)
        #expect(BundleLayout.detect(bundlePath: "/x/A.app", directoryLikeNames: ["Images"]) == .flat)
    }

    @Test("§7.5 dot segments are removed from relative URLs, empty segments kept")
    func dotSegments() {
        #expect(PathComponents.removingDotSegments("./Images/i.png") == "Images/i.png")
        #expect(PathComponents.removingDotSegments("Images/../x.png") == "x.png")
        #expect(PathComponents.removingDotSegments("/Images//i.png") == "/Images//i.png")
    }
}
