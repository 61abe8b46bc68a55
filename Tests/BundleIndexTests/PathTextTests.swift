// PathText.absolute skips its split-and-join for paths that are already absolute and normal;
// the shortcut must give exactly what the full normalisation gives.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Path text")
struct PathTextTests {
    @Test("absolute: the already-normal shortcut agrees with the full normalisation on every small path")
    func shortcutAgrees() {
        let parts = ["", ".", "..", "...", "a", ".a", "a.", "..b", "b..", "c d", "é"]
        let cwd = "/work/cur"
        var checked = 0, shortcuts = 0
        // Every path of up to three components, with and without a leading and trailing slash.
        for a in parts { for b in [nil] + parts { for c in [nil] + parts {
            let body = [a, b, c].compactMap { $0 }.joined(separator: "/")
            for path in [body, "/" + body, body + "/", "/" + body + "/"] {
                let joined = path.hasPrefix("/") ? path : cwd + "/" + path
                let full = "/" + (PathText.normalise(joined) ?? "")
                #expect(PathText.absolute(path, currentDirectory: cwd) == full, "\(path)")
                if PathText.isNormalAbsolute(path) {
                    #expect(path == full, "\(path) is called normal")
                    shortcuts += 1
                }
                checked += 1
            }
        } } }
        #expect(checked == 11 * 12 * 12 * 4 && shortcuts > 300, "\(checked) \(shortcuts)")
        #expect(PathText.isNormalAbsolute("/") && !PathText.isNormalAbsolute("") && !PathText.isNormalAbsolute("a/b"))
    }

    @Test("absolute asks for the current directory only for a relative path")
    func currentDirectoryOnlyWhenRelative() {
        var asked = 0
        func cwd() -> String { asked += 1; return "/w" }
        #expect(PathText.absolute("/x/../y", currentDirectory: cwd()) == "/y")
        #expect(asked == 0)
        #expect(PathText.absolute("x", currentDirectory: cwd()) == "/w/x")
        #expect(asked == 1)
    }

    @Test("join of two components is the variadic join: empty components dropped")
    func twoComponentJoin() {
        for a in ["", "a", "a/b", "/"] { for b in ["", "c", "c.lproj", "/"] {
            let variadic: (String...) -> String = PathText.join
            #expect(PathText.join(a, b) == variadic(a, b), "\(a) + \(b)")
        } }
        #expect(PathText.join("Resources", "en.lproj") == "Resources/en.lproj")
        #expect(PathText.join("", "en.lproj") == "en.lproj" && PathText.join("Resources", "") == "Resources")
    }

    @Test("a search step's directory is taken as it is only when nothing in it would be normalised")
    func normalDirectories() {
        // Every path of up to four components from these pieces.
        let pieces = ["a", ".", "..", "", "b.lproj", ".x", "..y"]
        var paths = [""]
        for _ in 0..<4 { paths += paths.flatMap { p in pieces.map { p.isEmpty ? $0 : p + "/" + $0 } } }
        var normal = 0
        for path in Set(paths) {
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            let expected = path.isEmpty || components.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
            #expect(ResourceSearch.isNormal(path) == expected, "\(path)")
            if expected { normal += 1 }
        }
        #expect(normal > 100, "\(normal)")
    }

    @Test("a subdirectory climbs out of the resource folder exactly when CF's depth walk goes below zero")
    func climbingOut() {
        // CF's walk over the components, empty ones included: a leading empty one and `.` are
        // skipped, `..` goes up, anything else down.
        func reference(_ path: String) -> Bool {
            var depth = 0
            for (i, c) in path.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
                if (i == 0 && c.isEmpty) || c == "." { continue }
                depth += c == ".." ? -1 : 1
                if depth < 0 { return true }
            }
            return false
        }
        let pieces = ["a", ".", "..", "", "...", ".x", "é"]
        var paths = [""]
        for _ in 0..<4 { paths += paths.flatMap { p in pieces.map { p + "/" + $0 } } + pieces }
        var climbing = 0
        for path in Set(paths) {
            #expect(LookupRequest.climbsOut(path) == reference(path), "\(path)")
            if reference(path) { climbing += 1 }
        }
        #expect(climbing > 100, "\(climbing)")
    }

    @Test("a path relative to a folder made absolute: the folder itself for \"\", one slash after \"/\"")
    func relativeInFolder() {
        #expect(PathText.absolute("", in: "/b/X.app") == "/b/X.app")
        #expect(PathText.absolute("Resources/en.lproj", in: "/b/X.app") == "/b/X.app/Resources/en.lproj")
        #expect(PathText.absolute("", in: "/") == "/")
        #expect(PathText.absolute("Resources", in: "/") == "/Resources")
        // What the walker keys listings by (`child`) and what the scanner looks them up by agree.
        for folder in ["/", "/b", "/b/X.app"] { for name in ["a", "a b", "é.lproj"] {
            #expect(PathText.absolute(name, in: folder) == PathText.child(name, of: folder))
            #expect(PathText.isSameOrInside(PathText.absolute(name, in: folder), folder))
        } }
    }

    @Test("a slash before a combining mark is still a slash: components, last component, a link's target")
    func slashBeforeACombiningMark() throws {
        let mark = "\u{301}"
        let parts = PathText.components("/r/a/\(mark)b//c", omittingEmpty: true)
        #expect(parts.count == 4 && sameBytes(parts[2], "\(mark)b"), "\(parts)")
        #expect(sameBytes(PathText.lastComponent("/r/a/\(mark)b"), "\(mark)b"))
        // Split by Character, "/́" is no separator: the link below resolved into another folder.
        let folder = makeTempDirectory(prefix: "combining")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/a/\(mark)b", withIntermediateDirectories: true)
        #expect(symlink("a/\(mark)b", folder + "/l") == 0)
        let real = try #require(FileSystem.realPathPastDirectory(of: "l", inRealDirectory: folder))
        #expect(sameBytes(real, folder + "/a/\(mark)b"), "\(real)")
    }
}
