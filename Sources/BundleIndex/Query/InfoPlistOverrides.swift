/// `_CFBundleInfoPlistProcessInfoDictionary` (docs/search-pattern.md, "Platform and device
/// keys") for a target: keys
/// `Base-platform~product`, `Base-platform`, `Base~product` that name a supported platform and
/// product are override keys. For the current target the best of them replaces `Base`
/// (`Base-plat~prod` > `Base~prod` > `Base-plat` > `Base`); every override key is removed;
/// `CFBundleExecutable` and `CFBundleIdentifier` are never overridden.
struct InfoPlistOverrides {
    let platform: String
    let product: String?
    let supportedPlatforms: [String]
    let supportedProducts: [String]

    init(context: SearchContext) {
        platform = context.platform.suffixName
        product = context.device?.rawValue
        supportedPlatforms = context.suffixes.supportedPlatforms
        supportedProducts = context.suffixes.supportedProducts
    }

    /// Splits `key` at its last `-` and last `~` (the `-` before the `~`, every part non-empty).
    private func parse(_ key: String) -> (base: String, platform: String?, product: String?)? {
        // Most keys have neither byte, and then no `Character` is either: the search by
        // Character below walks grapheme breaks back from the end, ~3 000 instructions a key,
        // most of an apple-profile open (docs/performance.md, "Opening a bundle").
        guard key.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "-") }) else { return nil }
        var rest = Substring(key)
        var product: Substring?
        if let tilde = rest.lastIndex(of: "~") {
            product = rest[rest.index(after: tilde)...]
            rest = rest[..<tilde]
        }
        var platform: Substring?
        if let dash = rest.lastIndex(of: "-") {
            platform = rest[rest.index(after: dash)...]
            rest = rest[..<dash]
        }
        guard platform != nil || product != nil, !rest.isEmpty,
              !(platform?.isEmpty ?? false), !(product?.isEmpty ?? false) else { return nil }
        if let p = platform, !supportedPlatforms.contains(String(p)) { return nil }
        if let p = product, !supportedProducts.contains(String(p)) { return nil }
        return (String(rest), platform.map(String.init), product.map(String.init))
    }

    func apply(to dict: [String: PropertyListValue]) -> [String: PropertyListValue] {
        var out = dict
        // rank 3: -plat~prod, 2: ~prod, 1: -plat (only for the current target)
        var best: [String: (rank: Int, value: PropertyListValue)] = [:]
        for (key, value) in dict {
            guard let parsed = parse(key) else { continue }
            out[key] = nil
            let platformMatches = parsed.platform.map { $0 == platform } ?? true
            let productMatches = parsed.product.map { $0 == (product == "ipod" ? "iphone" : product) } ?? true
            guard platformMatches && productMatches else { continue }
            let rank = (parsed.product != nil ? 2 : 0) + (parsed.platform != nil ? 1 : 0)
            if rank > (best[parsed.base]?.rank ?? 0) { best[parsed.base] = (rank, value) }
        }
        for (base, winner) in best where base != "CFBundleExecutable" && base != "CFBundleIdentifier" {
            out[base] = winner.value
        }
        return out
    }
}
