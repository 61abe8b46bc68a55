// The command line as scripts use it: exit codes, --json, --batch.
import Foundation
import Testing
@testable import BundleIndex

@Suite("bundleidx command line")
struct CLITests {
    static func fixture() throws -> BundleFixture {
        try BundleFixture([
            "Phone.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.phone", "CFBundleDevelopmentRegion": "en"]),
            "Phone.app/icon.png": "", "Phone.app/icon-linux.png": "", "Phone.app/en.lproj/Localizable.strings": "",
        ])
    }

    func cli(_ f: BundleFixture, _ args: [String], input: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        try run([bundleidxBinary] + args + ["--index", f.indexPath], input: input)
    }

    @Test("exit codes: 0 found, 1 not found, 2 usage, 3 index error, 4 bad root")
    func exitCodes() throws {
        let f = try Self.fixture()
        #expect(try cli(f, ["query", "com.example.phone", "icon", "--type", "png"]).status == 3, "no index yet")
        let built = try cli(f, ["build", f.root])
        #expect(built.status == 0, "\(built.stderr)")
        #expect(built.stdout.contains("indexed 1 bundles, 5 resources"), "\(built.stdout)")
        let found = try cli(f, ["query", "com.example.phone", "icon", "--type", "png"])
        #expect(found.status == 0)
        #expect(found.stdout == f.root + "/Phone.app/icon-linux.png\n")
        #expect(try cli(f, ["query", f.root + "/Phone.app", "nope", "--type", "png"]).status == 1)
        #expect(try cli(f, ["query", "com.example.none", "icon"]).status == 1)
        #expect(try cli(f, ["query", "com.example.phone"]).status == 2)
        #expect(try cli(f, ["query", "--bogus"]).status == 2)
        #expect(try cli(f, ["build", f.root + "/missing"]).status == 4)
    }

    @Test("a plain query line (parsed without ArgumentParser) answers as ArgumentParser's parse does")
    func plainQueryLineAgreesWithArgumentParser() throws {
        let f = try Self.fixture()
        try f.build()
        let phone = f.root + "/Phone.app"
        let queries: [(index: String, arguments: [String])] = [
            (f.indexPath, ["com.example.phone", "icon", "--type", "png"]),
            (f.indexPath, [phone, "icon", "--type", "png", "--profile", "foundation-linux"]),
            (f.indexPath, ["--profile", "apple", phone, "icon", "--type", "png"]),
            (f.indexPath, ["--json", "com.example.phone", "Localizable", "--type", "strings"]),
            (f.indexPath, ["com.example.phone", "Localizable", "--type", "strings", "--localization", "en"]),
            (f.indexPath, ["com.example.phone", "Localizable", "--dir", "en.lproj", "--type", "strings"]),
            (f.indexPath, ["com.example.phone", "nope", "--type", "png", "--json"]),
            (f.indexPath, [phone, "en", "--type", "lproj"]),
            (f.indexPath, ["com.example.none", "icon"]),
            (f.indexPath, ["help", "icon"]),
            (f.root + "/no-index", ["com.example.phone", "icon", "--type", "png"]),
        ]
        for (index, arguments) in queries {
            let plain = try run([bundleidxBinary, "query", "--index", index] + arguments)
            // `--index=PATH` is a spelling PlainQueryLine leaves to ArgumentParser.
            let parsed = try run([bundleidxBinary, "query", "--index=" + index] + arguments)
            #expect(plain == parsed, "\(arguments)")
        }
        // Lines it does not recognise still get ArgumentParser's usage errors.
        #expect(try cli(f, ["query", "com.example.phone", "icon", "--profile", "bogus"]).status == 2)
        #expect(try cli(f, ["query", "com.example.phone", "icon", "--type", "jpg", "--type", "png"]).stdout
                == f.root + "/Phone.app/icon-linux.png\n", "ArgumentParser takes the last of a repeated option")
        #expect(try cli(f, ["query", "com.example.phone", "icon", "extra"]).status == 2)
    }

    @Test("--json answers carry the path and the directory flag")
    func json() throws {
        let f = try Self.fixture()
        try f.build()
        let out = try cli(f, ["query", "com.example.phone", "Localizable", "--type", "strings", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any]
        #expect(object?["path"] as? String == f.root + "/Phone.app/en.lproj/Localizable.strings")
        #expect(object?["isDirectory"] as? Bool == false)
    }

    @Test("--batch answers one JSON line per query line, errors included")
    func batch() throws {
        let f = try Self.fixture()
        try f.build()
        let input = """
        {"bundle":"com.example.phone","op":"path","name":"icon","type":"png","dir":null}
        {"bundle":"com.example.phone","op":"localizations"}
        {"bundle":"com.example.none","op":"dev"}
        not json
        {"bundle":"com.example.phone","op":"path","name":7}
        """
        let out = try cli(f, ["query", "--batch", "--profile", "foundation-linux"], input: input)
        let lines = out.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines[0] == "\"icon-linux.png\"", "paths are relative to the bundle root")
        #expect(lines[1] == "[\"en\"]")
        #expect(lines[2].contains("error"))
        #expect(lines[3].contains("error"))
        #expect(lines[4].contains("error"))
    }

    @Test("bundles, info and stats work on a built index")
    func listing() throws {
        let f = try Self.fixture()
        try f.build()
        #expect(try cli(f, ["bundles"]).stdout.contains("Phone.app\tflat\tcom.example.phone"))
        #expect(try cli(f, ["info", "com.example.phone", "CFBundleIdentifier"]).stdout == "com.example.phone\n")
        #expect(try cli(f, ["info", "com.example.phone", "Missing"]).status == 1)
        #expect(try cli(f, ["stats"]).stdout.contains("bundles: 1"))
    }
}
