/// What CF derives from one directory entry's name (`_CFBundleSplitFileName`;
/// docs/search-pattern.md, "File names"): its start and end types and, for a given target,
/// whether it is a platform/product variant of another name.
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

    /// Whether `type` is the start or the end type of `name` (both UTF-8), as `types(name)`
    /// would say without building either: the name ends with `.` and the type, at a dot that is
    /// its last one (an end type has no dot) or its first one (a start type always has one).
    static func hasType(_ name: UnsafeRawBufferPointer, _ type: UnsafeRawBufferPointer) -> Bool {
        let dot = UInt8(ascii: ".")
        guard !type.isEmpty, name.count > type.count else { return false }
        let at = name.count - type.count - 1
        guard name[at] == dot, sameBytes(UnsafeRawBufferPointer(rebasing: name[(at + 1)...]), type) else { return false }
        return type.contains(dot) ? !name[..<at].contains(dot) : true
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

/// The suffixes a target recognises in file names (docs/search-pattern.md, "Platform and
/// device variants").
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

    // The same texts as bytes, once: every lookup that meets a variant compares against them.
    private let platformBytes: [UInt8]
    private let productBytes: [UInt8]
    private let supportedPlatformBytes: [[UInt8]]
    private let supportedProductBytes: [[UInt8]]

    init(platform: String, product: String, productSearch: Bool, supportedPlatforms: [String], supportedProducts: [String]) {
        self.platform = platform
        self.product = product
        self.productSearch = productSearch
        self.supportedPlatforms = supportedPlatforms
        self.supportedProducts = supportedProducts
        platformBytes = Array(platform.utf8)
        productBytes = Array(product.utf8)
        supportedPlatformBytes = supportedPlatforms.map { Array($0.utf8) }
        supportedProductBytes = supportedProducts.map { Array($0.utf8) }
    }

    static let linux = VariantSuffixes(platform: "-linux", product: "~", productSearch: false,
                                       supportedPlatforms: [], supportedProducts: [])

    /// Every target the index precomputes variant names for, so that any profile finds its
    /// variants with one read (a directory record lists each distinct stripped name).
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
        name.withUTF8Bytes { b in
            guard let (kind, removed) = variantSuffix(in: b) else { return (.plain, nil) }
            var out = Array(b[..<removed.lowerBound])
            out += b[removed.upperBound...]
            return (kind, String(decoding: out, as: UTF8.self))
        }
    }

    /// `analyse(entry)` when its stripped name is `name`, else nil — without building the
    /// stripped name (the query path meets this for every variant it chooses between).
    func variantKind(of entry: String, strippingTo name: String) -> VariantKind? {
        entry.withUTF8Bytes { e in
            name.withUTF8Bytes { n in
                guard let (kind, removed) = variantSuffix(in: e), e.count - removed.count == n.count,
                      e[..<removed.lowerBound].elementsEqual(n[..<removed.lowerBound]),
                      e[removed.upperBound...].elementsEqual(n[removed.lowerBound...]) else { return nil }
                return kind
            }
        }
    }

    /// The part of `analyse` that allocates nothing: the variant kind of a name and the byte
    /// range of its matched suffixes.
    private func variantSuffix(in b: UnsafeBufferPointer<UInt8>) -> (VariantKind, Range<Int>)? {
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
                if b[i..<dot].elementsEqual(productBytes) { product = i..<dot }
            } else if c == UInt8(ascii: "-") {
                let end = product?.lowerBound ?? dot
                if b[i..<end].elementsEqual(platformBytes) { platformRange = i..<end }
                break
            }
            i -= 1
        }
        // The platform range ends where the product starts, so one contiguous range goes.
        switch (product, platformRange) {
        case let (product?, platform?): return (.productAndPlatform, platform.lowerBound..<product.upperBound)
        case let (product?, nil): return (.product, product)
        case let (nil, platform?): return (.platform, platform)
        case (nil, nil): return nil
        }
    }

    /// `_CFBundleCheckFileProductAndPlatform` on a path already in the table, `prefix + component`
    /// (the step's `[lproj/][sub/]` and the entry). It searches the whole path after the lproj
    /// name (directory parts included), not just the file name.
    func classify(prefix: String, component: String, lprojNameLength: Int) -> VariantKind {
        prefix.withUTF8Bytes { p in
            component.withUTF8Bytes { c in
                // What CF searches is `p[lprojNameLength...] + c`. A non-empty prefix ends in `/`
                // and no suffix or name searched for contains one, so a match never spans the two
                // parts, and "starts with" is decided by the first non-empty part alone.
                let head = UnsafeBufferPointer(rebasing: p[min(lprojNameLength, p.count)...])
                let first = head.isEmpty ? c : head
                func has(_ byte: UInt8) -> Bool { head.contains(byte) || c.contains(byte) }
                func has(_ needle: [UInt8]) -> Bool { Self.contains(head, needle) || Self.contains(c, needle) }
                var foundProduct = false, foundPlatform = false, wrong = false
                if has(UInt8(ascii: "~")) && productBytes.count != 1 {
                    if has(productBytes) { foundProduct = true }
                    else { wrong = supportedProductBytes.contains { first.starts(with: $0) } }
                }
                if !wrong && has(UInt8(ascii: "-")) {
                    if has(platformBytes) { foundPlatform = true }
                    else { wrong = supportedPlatformBytes.contains { first.starts(with: $0) } }
                }
                if wrong { return .unmatched }
                switch (foundProduct, foundPlatform) {
                case (true, true): return .productAndPlatform
                case (true, false): return .product
                case (false, true): return .platform
                case (false, false): return .plain
                }
            }
        }
    }

    private static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        return false
    }

    /// The replacement rule of `_createQueryTableAtPath` for a variant that maps onto a name
    /// already in the table (docs/search-pattern.md, "Variants in one directory").
    static func replaces(previous: VariantKind, with current: VariantKind) -> Bool {
        switch previous {
        case .plain, .platform: return true
        case .product: return current == .productAndPlatform
        case .productAndPlatform, .unmatched: return false
        }
    }
}
