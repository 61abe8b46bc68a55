// The command line as scripts use it: exit codes, --json, --batch.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore
import BundleIndexJSON

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
        // A root that is no directory is bad input for verify and sync as for build; verify
        // used to find no bundle under a mistyped root and say "index matches the disk", and
        // sync exited 5.
        for root in [f.root + "/missing", f.root + "/Phone.app/Info.plist"] {
            let verified = try cli(f, ["verify", root])
            #expect(verified.status == 4 && verified.stderr.contains("directory"), "\(root): \(verified.status) \(verified.stderr)")
            let synced = try run([bundleidxBinary, "sync", root, "--timeout", "0.2"])
            #expect(synced.status == 4 && synced.stderr.contains("directory"), "\(root): \(synced.status) \(synced.stderr)")
        }
        #expect(try cli(f, ["verify", f.root]).status == 0)
    }

    @Test("an empty path or bundle (an unset variable in a script) is refused, never taken for the current directory")
    func emptyArguments() throws {
        let f = try Self.fixture()
        #expect(try cli(f, ["build", f.root]).status == 0)
        // Run from inside the bundle, where "" made absolute would name it.
        let inside = f.root + "/Phone.app"
        for (args, status) in [(["build", ""], Int32(4)), (["build", "--bundle", "", f.root], 4), (["verify", ""], 4),
                               (["query", "", "icon", "--type", "png"], 2), (["paths", "", "--type", "png"], 2)] {
            let result = try run([bundleidxBinary] + args + ["--index", f.indexPath], cwd: inside)
            #expect(result.status == status, "\(args): \(result.stderr)")
            #expect(result.stderr.contains("empty"), "\(args): \(result.stderr)")
        }
        #expect(try f.reader().statistics().roots == [f.root], "no root was added")
        #expect(try f.reader().bundle(atPath: "", context: .foundationLinux) == nil)
    }

    @Test("an index whose first build never committed (a full disk, a kill) is no index to read from; a build makes it one")
    func firstBuildNeverFinished() throws {
        let f = try Self.fixture()
        // What a first build leaves when it fails before its commit: the environment, claimed.
        _ = try IndexStore.openForWriting(path: f.indexPath)
        #expect(throws: BundleIndexError.self) { try IndexReader(path: f.indexPath) }
        for args in [["stats"], ["query", "com.example.phone", "icon", "--type", "png"], ["bundles"]] {
            let result = try cli(f, args)
            #expect(result.status == 3 && result.stderr.contains("no build of it has finished"), "\(args): \(result.stderr)")
        }
        #expect(try cli(f, ["build", f.root]).status == 0)
        #expect(try cli(f, ["query", "com.example.phone", "icon", "--type", "png"]).status == 0)
    }

    @Test("an argument that is not UTF-8 is a usage error naming it, not a path repaired into another one")
    func argumentsNotUTF8() throws {
        let f = try Self.fixture()
        let scratch = makeTempDirectory(prefix: "not-utf8")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        // The shell makes the byte: Process takes only valid strings.
        for line in ["$B build \"$R\" --index \"$S/ix$(printf '\\377')\"", "$B query \"$(printf 'a\\376')\" icon --index \"$S/ix\""] {
            let result = try run(["sh", "-c", line], environment: ["B": bundleidxBinary, "R": f.root, "S": scratch])
            #expect(result.status == 2, "\(line): \(result.stderr)")
            #expect(result.stderr.contains("is not valid UTF-8"), "\(line): \(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch).isEmpty, "no index was written")
    }

    @Test("string: the table's entry; exit 1 for a missing key; --table, --localization, --json, the profile's languages")
    func string() throws {
        let f = try wordsFixture()
        let app = f.root + "/Words.app"
        let linux = ["--profile", "foundation-linux"]
        let hello = try cli(f, ["string", app, "hello"] + linux)
        #expect(hello.status == 0 && hello.stdout == "bonjour\n", "\(hello)")
        #expect(try cli(f, ["string", "com.example.words", "s", "--table", "Plural"] + linux).stdout == "from stringsdict\n")
        let missing = try cli(f, ["string", app, "no such key"] + linux)
        #expect(missing.status == 1 && missing.stdout.isEmpty)
        #expect(try cli(f, ["string", app, "File", "--table", "Menu"] + linux).status == 1)
        #expect(try cli(f, ["string", app, "File", "--table", "Menu", "--localization", "en"] + linux).stdout == "File\n")
        // The apple profile searches the user's languages: en.lproj's table for --lang en.
        #expect(try cli(f, ["string", app, "hello", "--lang", "en"]).stdout == "hello\n")
        let json = try cli(f, ["string", app, "quote", "--json"] + linux)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["value"] as? String == "a \"b\"\n" && object["table"] as? String == "Localizable" && object["key"] as? String == "quote")
        let absent = try cli(f, ["string", app, "nope", "--json"] + linux)
        #expect(absent.status == 1 && absent.stdout.contains("\"value\":null"))
        #expect(try cli(f, ["string", "com.example.none", "hello"]).status == 1)
        #expect(try cli(f, ["string", app]).status == 2)
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
            (f.indexPath, ["com.example.phone", "Localizable", "--type", "strings", "--lang", "fr,en"]),
            (f.indexPath, ["com.example.phone", "icon.png", "--platform", "ios", "--device", "ipad"]),
            (f.indexPath, ["com.example.phone", "icon", "--type", "png", "--platform", "macos", "--json"]),
            (f.indexPath, ["com.example.phone", "icon", "--device", "ipod", "--profile", "foundation-linux"]),
            (f.indexPath, ["com.example.phone", "icon", "--platform", "beos"]),
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

    @Test("bundleidx answers a plain query itself and hands every other line to bundleidx-cli")
    func frontProgram() throws {
        let f = try Self.fixture()
        try f.build()
        // The front program alone, without bundleidx-cli beside it or in ../libexec/bundleidx.
        let alone = makeTempDirectory(prefix: "front")
        defer { try? FileManager.default.removeItem(atPath: alone) }
        try FileManager.default.copyItem(atPath: bundleidxBinary, toPath: alone + "/bundleidx")
        let front = alone + "/bundleidx"
        let found = try run([front, "query", "com.example.phone", "icon", "--type", "png", "--index", f.indexPath])
        #expect(found.status == 0 && found.stdout == f.root + "/Phone.app/icon-linux.png\n", "\(found)")
        let languages = try run([front, "query", "com.example.phone", "Localizable", "--type", "strings", "--lang", "fr,en",
                                 "--platform", "linux", "--index", f.indexPath])
        #expect(languages.status == 0 && languages.stdout == f.root + "/Phone.app/en.lproj/Localizable.strings\n", "\(languages)")
        let missing = try run([front, "query", "com.example.phone", "nope", "--index", f.indexPath])
        #expect(missing.status == 1 && missing.stdout.isEmpty && missing.stderr.isEmpty, "\(missing)")
        let json = try run([front, "query", "com.example.phone", "icon", "--type", "png", "--json", "--index", f.indexPath])
        #expect(json.status == 0 && json.stdout == #"{"bundle":"\#(f.root)/Phone.app","path":"\#(f.root)/Phone.app/icon-linux.png","isDirectory":false}"#
                + "\n", "\(json)")
        let batch = try run([front, "query", "--batch", "--profile", "foundation-linux", "--index", f.indexPath],
                            input: #"{"bundle":"com.example.phone","op":"path","name":"icon","type":"png"}"# + "\nnot json\n")
        #expect(batch.status == 0 && batch.stdout.hasPrefix("\"" + f.root + "/Phone.app/icon-linux.png\"\n{\"error\":"),
                "\(batch)")
        let noIndex = try run([front, "query", "com.example.phone", "icon", "--index", f.root + "/no-index"])
        #expect(noIndex.status == 3 && noIndex.stderr.contains("no index at"), "\(noIndex)")
        // Anything else needs the full command line, and says where it looked.
        for line in [["stats"], ["query", "com.example.phone", "icon", "--lang", "fr", "--lang", "en"],
                     ["query", "--batch", "--profile", "foundation-linux", "--lang", "fr"],
                     ["query", "--batch", "com.example.phone"], ["--help"]] {
            let handed = try run([front] + line + ["--index", f.indexPath])
            #expect(handed.status == 5 && handed.stderr.contains("cannot find bundleidx-cli"), "\(line): \(handed)")
            #expect(handed.stderr.contains(alone + "/bundleidx-cli") && handed.stderr.contains("/libexec/bundleidx/bundleidx-cli"))
        }
        // Installed layout: bin/bundleidx finds libexec/bundleidx/bundleidx-cli.
        try FileManager.default.createDirectory(atPath: alone + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: alone + "/libexec/bundleidx", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: front, toPath: alone + "/bin/bundleidx")
        try FileManager.default.copyItem(atPath: testHelperBinary("bundleidx-cli"), toPath: alone + "/libexec/bundleidx/bundleidx-cli")
        let stats = try run([alone + "/bin/bundleidx", "stats", "--index", f.indexPath])
        #expect(stats.status == 0 && stats.stdout.contains("bundles"), "\(stats)")
    }

    @Test("the front program links neither Foundation nor ArgumentParser")
    func frontProgramIsSmall() throws {
        let binary = try #require(FileManager.default.contents(atPath: bundleidxBinary))
        // Swift's mangled names spell a module as its length and name; none of these may appear.
        for module in ["14ArgumentParser", "10Foundation", "20FoundationEssentials", "9BundleIndex"] {
            #expect(binary.range(of: Data(module.utf8)) == nil, "\(module) is linked into bundleidx")
        }
        #expect(binary.range(of: Data("15BundleIndexCore".utf8)) != nil, "the check itself reads mangled names")
        let libraries = try run(["/usr/bin/ldd", bundleidxBinary]).stdout
        #expect(!libraries.contains("Foundation") && !libraries.contains("icu"), "\(libraries)")
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
        #expect(lines[0] == "\"\(f.root)/Phone.app/icon-linux.png\"", "paths are absolute, as a single query prints them")
        #expect(lines[1] == "[\"en\"]")
        #expect(lines[2].contains("error"))
        #expect(lines[3].contains("error"))
        #expect(lines[4].contains("error"))
    }

    @Test("--batch answers are the paths single queries print, for the same lookups")
    func batchAnswersEqualSingleQueries() throws {
        let f = try BundleFixture([
            "Tool.app/Contents/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.tool", "CFBundleDevelopmentRegion": "en"]),
            "Tool.app/Contents/Resources/icon.png": "", "Tool.app/Contents/Resources/icon~ipad.png": "",
            "Tool.app/Contents/Resources/Images/logo.png": "", "Tool.app/Contents/Resources/Images/logo-linux.png": "",
            "Tool.app/Contents/Resources/Data/": "", "Tool.app/Contents/Resources/Data/table.json": "",
            "Tool.app/Contents/Resources/en.lproj/Localizable.strings": "",
            "Tool.app/Contents/Resources/fr.lproj/Localizable.strings": "",
            "Tool.app/Contents/Resources/fr.lproj/only-fr.txt": "",
            "Tool.app/Contents/Resources/caf\u{E9} \"quoted\" \\ name.txt": "",
            "Tool.app/Contents/Resources/\u{1F600}.txt": "",
        ])
        try f.build()
        let tool = f.root + "/Tool.app"
        // (bundle, name, type, dir, localization)
        let lookups: [(String, String?, String?, String?, String?)] = [
            ("com.example.tool", "icon", "png", nil, nil), (tool, "icon", "png", nil, nil),
            ("com.example.tool", "logo", "png", "Images", nil), ("com.example.tool", "logo.png", nil, "Images", nil),
            ("com.example.tool", "Data", nil, nil, nil), ("com.example.tool", "table", "json", "Data", nil),
            ("com.example.tool", "Localizable", "strings", nil, nil), ("com.example.tool", "Localizable", "strings", nil, "fr"),
            ("com.example.tool", "only-fr", "txt", nil, nil), ("com.example.tool", "only-fr", "txt", nil, "fr"),
            ("com.example.tool", "caf\u{E9} \"quoted\" \\ name", "txt", nil, nil), ("com.example.tool", "\u{1F600}", "txt", nil, nil),
            ("com.example.tool", nil, "json", "Data", nil), ("com.example.tool", "missing", "png", nil, nil),
            ("com.example.tool", "icon", "png", "Nope", nil), (tool, "../Info", "plist", nil, nil),
        ]
        var batch = ""
        for (bundle, name, type, dir, localization) in lookups {
            for op in ["path", "url"] {
                var members: [(String, JSONText)] = [("bundle", .string(bundle)), ("op", .string(op)),
                                                     ("name", name.map(JSONText.string) ?? .null),
                                                     ("type", type.map(JSONText.string) ?? .null), ("dir", dir.map(JSONText.string) ?? .null)]
                if let localization { members.append(("loc", .string(localization))) }
                batch += JSONText.render(members) + "\n"
            }
        }
        let answers = try cli(f, ["query", "--batch", "--profile", "foundation-linux"], input: batch).stdout.split(separator: "\n")
        #expect(answers.count == 2 * lookups.count)
        for (i, (bundle, name, type, dir, localization)) in lookups.enumerated() where 2 * i + 1 < answers.count {
            var arguments = ["query", bundle] + (name.map { [$0] } ?? [])
            if let type { arguments += ["--type", type] }
            if let dir { arguments += ["--dir", dir] }
            if let localization { arguments += ["--localization", localization] }
            let single = try cli(f, arguments + ["--profile", "foundation-linux"])
            let json = try cli(f, arguments + ["--profile", "foundation-linux", "--json"])
            let singleObject = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            let path = try JSONSerialization.jsonObject(with: Data(answers[2 * i].utf8), options: .fragmentsAllowed)
            let url = try JSONSerialization.jsonObject(with: Data(answers[2 * i + 1].utf8), options: .fragmentsAllowed)
            if single.status == 0 {
                #expect((path as? String).map { $0 + "\n" } == single.stdout, "\(arguments)")
                #expect((url as? [String: Any])?["path"] as? String == singleObject?["path"] as? String, "\(arguments)")
                #expect((url as? [String: Any])?["isDir"] as? Bool == singleObject?["isDirectory"] as? Bool, "\(arguments)")
            } else {
                #expect(single.status == 1 && single.stdout.isEmpty, "\(arguments): \(single)")
                #expect(path is NSNull && url is NSNull, "\(arguments): \(answers[2 * i]) \(answers[2 * i + 1])")
            }
        }
        #expect(answers.contains { $0.contains("caf\u{E9} \\\"quoted\\\" \\\\ name.txt") }, "quotes and backslashes escaped, UTF-8 as it is")
        #expect(!answers.contains { $0.contains("\\/") }, "no escaped slashes")
    }

    @Test("bundles, info and stats work on a built index")
    func listing() throws {
        let f = try Self.fixture()
        try f.build()
        #expect(try cli(f, ["bundles"]).stdout.contains("Phone.app\tflat\tcom.example.phone"))
        #expect(try cli(f, ["info", "com.example.phone", "CFBundleIdentifier"]).stdout == "com.example.phone\n")
        #expect(try cli(f, ["info", "com.example.phone", "Missing"]).status == 1)
        let stats = try cli(f, ["stats"]).stdout
        #expect(stats.contains("bundles: 1"))
        // en.lproj/Localizable.strings, empty: its table record alone.
        #expect(stats.contains("strings records: 1"), "\(stats)")
    }
}

@Suite("bundleidx command line: names with control characters")
struct ControlCharacterOutputTests {
    @Test("paths and bundles: escaped on a terminal, raw to a pipe, NUL-terminated with -0")
    func controlCharactersInNames() throws {
        let f = try BundleFixture(["E.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.e"]),
                                   "E.app/a\nb.png": "", "E.app/c\u{1B}[31md.png": ""])
        try f.build()
        let paths = [bundleidxBinary, "paths", f.root + "/E.app", "--type", "png", "--index", f.indexPath]
        let piped = try run(paths)
        #expect(piped.stdout.contains("/E.app/a\nb.png\n") && piped.stdout.contains("c\u{1B}[31md.png"), "raw to a pipe")
        let nul = try run(paths + ["-0"])
        #expect(nul.stdout.split(separator: "\0").map(String.init).sorted()
                == [f.root + "/E.app/a\nb.png", f.root + "/E.app/c\u{1B}[31md.png"])
        // A terminal: `script` gives the command one.
        let command = paths.map { "'\($0)'" }.joined(separator: " ")
        let shown = try run(["script", "-qc", command, "/dev/null"])
        #expect(shown.stdout.contains("/E.app/a\\nb.png") && shown.stdout.contains("c\\e[31md.png"), "\(shown.stdout)")
        #expect(!shown.stdout.contains("\u{1B}"), "no raw ESC reaches the terminal")
        let bundles = try run([bundleidxBinary, "bundles", "--null", "--index", f.indexPath])
        #expect(bundles.stdout == f.root + "/E.app\0")
    }
}

extension ControlCharacterOutputTests {
    @Test("localizations and info: escaped on a terminal, raw to a pipe, NUL-terminated with -0")
    func localizationsAndInfo() throws {
        let f = try BundleFixture(["E.app/Info.plist": infoPlist(["CFBundleIdentifier": "com.example.e",
                                                                  "Motto": "red\u{1B}[31m\nline"]),
                                   "E.app/fr.lproj/x.txt": "", "E.app/q\u{1B}[2J.lproj/x.txt": ""])
        try f.build()
        let base = [f.root + "/E.app", "--index", f.indexPath]
        func onTerminal(_ args: [String]) throws -> String {
            try run(["script", "-qc", ([bundleidxBinary] + args).map { "'\($0)'" }.joined(separator: " "), "/dev/null"]).stdout
        }
        let localizations = try onTerminal(["localizations"] + base)
        #expect(localizations.contains("q\\e[2J") && !localizations.contains("\u{1B}"), "\(localizations)")
        let info = try onTerminal(["info"] + base)
        #expect(info.contains("Motto = red\\e[31m\\nline") && !info.contains("\u{1B}"), "\(info)")
        #expect(try run([bundleidxBinary, "info"] + base + ["Motto"]).stdout == "red\u{1B}[31m\nline\n", "raw to a pipe")

        #expect(try run([bundleidxBinary, "localizations", "-0"] + base).stdout == "fr\0q\u{1B}[2J\0")
        #expect(try run([bundleidxBinary, "info", "--null"] + base + ["Motto"]).stdout == "red\u{1B}[31m\nline\0")
        #expect(try run([bundleidxBinary, "info", "-0"] + base).stdout
                == "CFBundleIdentifier\0com.example.e\0Motto\0red\u{1B}[31m\nline\0")
    }
}
