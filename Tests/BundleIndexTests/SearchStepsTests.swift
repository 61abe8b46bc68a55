// The search steps a reader's bundles share (`SearchStepsTable`): made once per layout and search
// list, told apart byte for byte, the same folders as a plan of its own would read.
import Testing
@testable import BundleIndexCore

@Suite("Shared search steps")
struct SearchStepsTests {
    private func paths(_ steps: SearchSteps) -> [[UInt8]] { steps.directories.map { Array($0.path.utf8) } }

    @Test("one layout and search list: the steps are made once and shared")
    func shared() {
        let table = SearchStepsTable()
        let first = table.steps(layout: .contents, searchList: ["de", "en"])
        let again = table.steps(layout: .contents, searchList: ["de", "en"])
        #expect(first.directories.withUnsafeBufferPointer { $0.baseAddress }
            == again.directories.withUnsafeBufferPointer { $0.baseAddress })
        #expect(first.steps.map(\.lproj) == [nil, "de", "Base", "en"])
        #expect(first.steps.map(\.firstLproj) == [false, true, true, false])
        #expect(first.directories.map(\.path)
            == ["Contents/Resources", "Contents/Resources/de.lproj", "Contents/Resources/Base.lproj", "Contents/Resources/en.lproj"])
        #expect(first.prefixes == ["", "de.lproj/", "Base.lproj/", "en.lproj/"])
        #expect(first.longestDirectory == "Contents/Resources/Base.lproj".utf8.count)
        #expect(first.directories.map(\.hash) == first.directories.map { Hashing.directory($0.path) })
    }

    @Test("another layout, order or spelling gets steps of its own")
    func apart() {
        let table = SearchStepsTable()
        let composed = "\u{E9}", decomposed = "e\u{301}"  // equal as Strings, not as file names
        let a = table.steps(layout: .resources, searchList: [composed])
        let b = table.steps(layout: .resources, searchList: [decomposed])
        #expect(paths(a)[1] == Array("Resources/\(composed).lproj".utf8))
        #expect(paths(b)[1] == Array("Resources/\(decomposed).lproj".utf8))
        #expect(paths(table.steps(layout: .flat, searchList: [composed]))[1] == Array("\(composed).lproj".utf8))
        #expect(table.steps(layout: .resources, searchList: ["en", "de"]).steps.map(\.lproj) == [nil, "en", "Base", "de"])
        #expect(table.steps(layout: .resources, searchList: ["de", "en"]).steps.map(\.lproj) == [nil, "de", "Base", "en"])
        #expect(table.steps(layout: .resources, searchList: []).steps.map(\.lproj) == [nil, "Base"])
    }

    @Test("past its capacity it starts again and still answers right")
    func bounded() {
        let table = SearchStepsTable()
        for n in 0..<(SearchStepsTable.capacity * 2 + 3) {
            let language = "l\(n)"
            #expect(table.steps(layout: .contents, searchList: [language]).directories[1].path
                == "Contents/Resources/\(language).lproj")
        }
    }
}
