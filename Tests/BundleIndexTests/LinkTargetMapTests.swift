// The watcher's map of followed links' targets (LinkTargetMap) answers by walking a path's
// folders up; its answers must be those of the plain definitions, which go through every
// target (what the watcher did before, at a cost linear in the targets for each event).
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Link target map")
struct LinkTargetMapTests {
    /// Every target and its linking bundles, kept the plain way; keyed by bytes, as the file
    /// system tells names apart (a `String` key takes the two spellings of "Café" for one).
    struct Plain {
        var linking: [[UInt8]: Set<String>] = [:]

        subscript(target: String) -> Set<String>? {
            get { linking[Array(target.utf8)] }
            set { linking[Array(target.utf8)] = newValue }
        }

        subscript(target: String, default value: Set<String>) -> Set<String> {
            get { linking[Array(target.utf8), default: value] }
            set { linking[Array(target.utf8)] = newValue }
        }

        func linkingTo(_ path: String) -> Set<String> {
            union { PathText.isSameOrInside(path, $0) }
        }

        func linkingAtOrBelow(_ folder: String) -> Set<String> {
            union { PathText.isSameOrInside($0, folder) }
        }

        private func union(where isIncluded: (String) -> Bool) -> Set<String> {
            linking.filter { isIncluded(String(decoding: $0.key, as: UTF8.self)) }.values.reduce(into: []) { $0.formUnion($1) }
        }
    }

    @Test("random adds and removes: every question answered as by going through every target")
    func matchesThePlainDefinitions() {
        // Folders that share prefixes byte-wise but not component-wise (`/a/b` and `/a/bc`), `/`
        // itself, and names equal under Unicode but not in bytes.
        let paths = ["/", "/a", "/a/b", "/a/bc", "/a/b/c", "/a/b/c/d", "/ab", "/x/Caf\u{E9}", "/x/Cafe\u{301}",
                     "/x/Caf\u{E9}/y", "/x", "/a/bc/d"]
        let bundles = ["/r/A.app", "/r/B.app", "/r/C.app"]
        var rng = SystemRandomNumberGenerator()
        var map = LinkTargetMap()
        var plain = Plain()
        for step in 0..<4000 {
            let target = paths.randomElement(using: &rng)!, bundle = bundles.randomElement(using: &rng)!
            if Bool.random(using: &rng) {
                map.add(bundle, linkingTo: target)
                plain[target, default: []].insert(bundle)
            } else {
                let wasLast = plain[target] == [bundle]
                plain[target]?.remove(bundle)
                if plain[target]?.isEmpty == true { plain[target] = nil }
                #expect(map.remove(bundle, linkingTo: target) == wasLast, "step \(step): remove \(bundle) from \(target)")
            }
            for path in paths + ["/a/b/c/d/e", "/q"] {
                #expect(Set(map.bundles(linkingTo: path)) == plain.linkingTo(path), "step \(step): linking to \(path)")
                #expect(Set(map.bundles(linkingAtOrBelow: path)) == plain.linkingAtOrBelow(path), "step \(step): at or below \(path)")
                #expect(map.holds(path) == !plain.linkingTo(path).isEmpty, "step \(step): holds \(path)")
                #expect(map.isLinked(path) == (plain[path] != nil), "step \(step): \(path) linked")
            }
            if step % 500 == 499 {
                map.removeAll()
                plain.linking = [:]
            }
        }
        #expect(map.isEmpty == plain.linking.isEmpty)
    }
}
