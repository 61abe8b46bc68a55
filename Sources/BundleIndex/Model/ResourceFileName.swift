/// What CF derives from one directory entry's name (SEARCH_PATTERN.md §5,
/// `_CFBundleSplitFileName`): its start and end types and, for a given target, whether it is a
/// platform/product variant of another name.
enum ResourceFileName {
    /// Text after the last `.`, unless that dot is the last character (`.hidden` → `hidden`).
    static func endType(_ name: String) -> String? {
        let u = name.utf8
        guard let dot = u.lastIndex(of: UInt8(ascii: ".")) else { return nil }
        let after = u.index(after: dot)
        guard after != u.endIndex else { return nil }
        return String(name[after...])
    }

    /// Text after the first `.`, only when that dot is not also the last one
    /// (`a.tar.gz` → `tar.gz`; `a.png` → nil).
    static func startType(_ name: String) -> String? {
        let u = name.utf8
        guard let first = u.firstIndex(of: UInt8(ascii: ".")),
              let last = u.lastIndex(of: UInt8(ascii: ".")), first != last else { return nil }
        return String(name[u.index(after: first)...])
    }

    /// Both types, in the order CF appends them to the type tables.
    static func types(_ name: String) -> [String] {
        var out: [String] = []
        if let s = startType(name) { out.append(s) }
        if let e = endType(name) { out.append(e) }
        return out
    }
}

/// `_CFBundleFileVersion`: how specific a file name is for the current target.
enum VariantKind: UInt8 {
    case plain = 1               // NoProductNoPlatform
    case product = 2             // WithProductNoPlatform
    case platform = 3            // NoProductWithPlatform
    case productAndPlatform = 4  // WithProductWithPlatform
    case unmatched = 5           // "wrong device/platform name" (only from the previous-path check)
}

/// The suffixes a target recognises in file names (§5 table).
struct VariantSuffixes: Hashable, Sendable {
    /// `-linux`, `-macos`, `-iphoneos`, ...
    let platform: String
    /// `~ipad`, `~iphone`, ...; `~` when the target has no product name.
    let product: String
    /// Product suffixes are parsed only on iOS-family targets.
    let productSearch: Bool
    /// Names `_CFBundleSupportedPlatformName/ProductName` accept (empty on Linux).
    let supportedPlatforms: [String]
    let supportedProducts: [String]

    static let linux = VariantSuffixes(platform: "-linux", product: "~", productSearch: false,
                                       supportedPlatforms: [], supportedProducts: [])

    /// Every target the index precomputes variant keys for, so that any profile finds its
    /// variants with one read (Store writes a name record under each distinct stripped name).
    static let allTargets: [VariantSuffixes] = {
        var out: [VariantSuffixes] = [.linux]
        for p in ["-macos", "-windows", "-freebsd", "-wasi"] {
            out.append(VariantSuffixes(platform: p, product: "~", productSearch: false,
                                       supportedPlatforms: [], supportedProducts: []))
        }
        let families: [(String, [String])] = [("-iphoneos", ["~iphone", "~ipad", "~"]),
                                              ("-tvos", ["~appletv"]), ("-watchos", ["~applewatch"])]
        for (platform, products) in families {
            for product in products {
                out.append(VariantSuffixes(platform: platform, product: product, productSearch: true,
                                           supportedPlatforms: [], supportedProducts: []))
            }
        }
        return out
    }()

    /// `_CFBundleVersionForFileName` + the deletion in `_CFBundleSplitFileName`: scans from the
    /// end to index 1; `~` ranges run to the nearest dot on the right, only the rightmost `-` is
    /// tested (its range ends at a matched product or that dot). Returns the variant kind and the
    /// name with the matched suffixes removed (nil when nothing matched).
    func analyse(_ name: String) -> (kind: VariantKind, stripped: String?) {
        let b = Array(name.utf8)
        guard let (kind, suffix) = b.withUnsafeBufferPointer({ variantSuffix(in: $0) }) else { return (.plain, nil) }
        var out = b
        out.removeSubrange(suffix)
        return (kind, String(decoding: out, as: UTF8.self))
    }

    /// The part of `analyse`'s algorithm that allocates nothing: the kind and the byte range
    /// of the matched suffixes (the platform range ends where the product starts, so it is one
    /// contiguous range). The build calls it once per target for every file name with a `-`
    /// or `~`.
    func variantSuffix(in b: UnsafeBufferPointer<UInt8>) -> (VariantKind, Range<Int>)? {
        guard b.count > 1 else { return nil }
        var dot = b.count
        var product: Range<Int>?
        var platformRange: Range<Int>?
        var i = b.count - 1
        while i > 0 {
            let c = b[i]
            if c == UInt8(ascii: ".") {
                dot = i
            } else if productSearch, product == nil, c == UInt8(ascii: "~") {
                if b[i..<dot].elementsEqual(self.product.utf8) { product = i..<dot }
            } else if c == UInt8(ascii: "-") {
                let end = product?.lowerBound ?? dot
                if b[i..<end].elementsEqual(platform.utf8) { platformRange = i..<end }
                break
            }
            i -= 1
        }
        switch (product, platformRange) {
        case (let p?, let q?): return (.productAndPlatform, q.lowerBound..<p.upperBound)
        case (let p?, nil): return (.product, p)
        case (nil, let q?): return (.platform, q)
        case (nil, nil): return nil
        }
    }

    /// `_CFBundleCheckFileProductAndPlatform` on a path already in the table. It searches the
    /// whole path after the lproj name (directory parts included), not just the file name.
    func classify(previousPath path: String, lprojNameLength: Int) -> VariantKind {
        let u = Array(path.utf8)
        let range = Array(u[min(lprojNameLength, u.count)...])
        var foundProduct = false, foundPlatform = false, wrong = false
        if range.contains(UInt8(ascii: "~")) && product.utf8.count != 1 {
            if contains(range, Array(product.utf8)) { foundProduct = true }
            else { wrong = supportedProducts.contains { range.starts(with: Array($0.utf8)) } }
        }
        if !wrong && range.contains(UInt8(ascii: "-")) {
            if contains(range, Array(platform.utf8)) { foundPlatform = true }
            else { wrong = supportedPlatforms.contains { range.starts(with: Array($0.utf8)) } }
        }
        if wrong { return .unmatched }
        switch (foundProduct, foundPlatform) {
        case (true, true): return .productAndPlatform
        case (true, false): return .product
        case (false, true): return .platform
        case (false, false): return .plain
        }
    }

    /// The replacement rule of `_createQueryTableAtPath` for a variant that maps onto a name
    /// already in the table (§6).
    static func replaces(previous: VariantKind, with current: VariantKind) -> Bool {
        switch previous {
        case .plain, .platform: return true
        case .product: return current == .productAndPlatform
        case .productAndPlatform, .unmatched: return false
        }
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        return false
    }
}
