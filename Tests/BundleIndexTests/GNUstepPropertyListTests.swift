// GNUstep's text property lists (issue 15, item 2; docs/search-pattern.md, "Which Info.plist
// file is read"): the OpenStep subset agrees with Foundation's parser, the typed values GNUstep
// adds read as typed values, malformed text is an error with a reason and a line, and an app's
// Info-gnustep.plist written in the dialect reads typed in the apple profile, without a warning.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("GNUstep property lists")
struct GNUstepPropertyListTests {
    func parse(_ text: String) throws -> PropertyListValue { try GNUstepPropertyList.parse(Array(text.utf8)) }

    /// OpenStep texts both parsers read: Foundation (CoreFoundation's parser) is the oracle.
    static let openStepTexts = [
        "{ a = b; }",
        "{}",
        "()",
        "{ CFBundleIdentifier = org.gnustep.Ink; NSExecutable = Ink; }",
        #"{ "quoted key" = "a value with spaces"; list = (one, "two", 3); }"#,
        #"{ escapes = "tab\there\nnew line \"quoted\" back\\slash"; }"#,
        #"{ octal = "\101\102"; unicode = "caf\U00e9 \U263A"; }"#,
        "{ data = <0fa1 B2c3>; empty = <>; }",
        "{ nested = { deeper = { deepest = (a, (b, (c))); }; }; }",
        "// a comment\n{ /* inline */ a = b; // trailing\n c = d; }\n",
        "{ path = /usr/lib/GNUstep/Bundles; version = 1.2.3; dash = a-b; under = a_b; }",
        "{ number = 42; negative = -7; real = 1.5; }",
        #"{ "" = empty; unicode = "日本語"; }"#,
        "( a, b, c )",
    ]

    @Test("the OpenStep subset reads as Foundation reads it")
    func agreesWithFoundation() throws {
        for text in Self.openStepTexts {
            let foundation = try PropertyListSerialization.propertyList(from: Data(text.utf8), options: [], format: nil)
            let ours = try parse(text), theirs = PropertyListReader.convert(foundation)
            #expect(ours == theirs, "\(text): \(ours) vs Foundation's \(String(describing: theirs))")
        }
    }

    @Test("typed values: <*I…> integer, <*R…> real, <*BY>/<*BN> bool, <*D…> date, <[…]> base64 data")
    func typedValues() throws {
        #expect(try parse("<*I42>") == .integer(42))
        #expect(try parse("<*I-7>") == .integer(-7))
        #expect(try parse(#"<*I"12">"#) == .integer(12))
        #expect(try parse("<*I9223372036854775807>") == .integer(.max))
        #expect(try parse("<*R1.5>") == .real(1.5))
        #expect(try parse("<*R-2e3>") == .real(-2000))
        #expect(try parse("<*BY>") == .bool(true))
        #expect(try parse("<*BN>") == .bool(false))
        #expect(try parse("<*BYES>") == .bool(true), "GNUstep reads the first letter")
        #expect(try parse("<[aGVsbG8=]>") == .data(Array("hello".utf8)))
        let date = try #require(ISO8601DateFormatter().date(from: "2024-01-02T02:04:05Z")).timeIntervalSince1970
        #expect(try parse("<*D2024-01-02 03:04:05 +0100>") == .date(date))
        #expect(try parse("<*D1969-12-31 19:00:00 -0500>") == .date(0))
        #expect(try parse("<*D2000-02-29 00:00:00 +0000>") == .date(951_782_400))
        let info = try parse("{ Answer = <*I42>; Pi = <*R3.25>; On = <*BY>; Sizes = (<*I1>, <*I2>); }")
        #expect(info == .dictionary(["Answer": .integer(42), "Pi": .real(3.25), "On": .bool(true),
                                     "Sizes": .array([.integer(1), .integer(2)])]))
    }

    @Test("GNUstep's leniencies: a missing ';' before '}', a trailing ',' in an array, a UTF-8 byte order mark, \\u as \\U")
    func leniencies() throws {
        // CF reads "\u263A" as "u263A"; GNUstep takes a lowercase u for an escape too.
        #expect(try parse(#""\u263A""#) == .string("☺"))
        #expect(try parse("{ a = b }") == .dictionary(["a": .string("b")]))
        #expect(try parse("(a, b,)") == .array([.string("a"), .string("b")]))
        #expect(try GNUstepPropertyList.parse([0xEF, 0xBB, 0xBF] + Array("{ a = b; }".utf8)) == .dictionary(["a": .string("b")]))
    }

    @Test("malformed text is an error naming what is wrong and its line, never a crash")
    func malformed() throws {
        let cases: [(String, String, Int)] = [
            ("{ a = <*X1>; }", "is not a type GNUstep knows", 1),
            ("{ a = <*I>; }", "lacks its type or its value", 1),
            ("{\n a = <*Iabc>; }", "<*Iabc> is not an integer", 2),
            ("{ a = <*I99999999999999999999>; }", "out of range", 1),
            ("{ a = <*Rx>; }", "is not a real number", 1),
            ("{ a = <*BQ>; }", "is not a boolean", 1),
            ("{ a = <*D2024-13-01 00:00:00 +0000>; }", "is not a date", 1),
            ("{ a = <*D2023-02-29 00:00:00 +0000>; }", "is not a date", 1),
            ("{ a = <*I42; }", "not closed with '>'", 1),
            ("{ a = <0f1>; }", "pairs of digits", 1),
            ("{ a = <zz>; }", "'>' expected to end hex data", 1),
            ("{ a = b;\n\n", "the text ends inside a dictionary", 3),
            ("{ a b; }", "'=' expected after the key \"a\"", 1),
            ("{ a = b c; }", "';' or '}' expected", 1),
            ("(a b)", "',' or ')' expected", 1),
            ("{ a = \"open; }", "a quoted string is not closed", 1),
            ("{ <*I1> = a; }", "a dictionary key must be a string", 1),
            ("{ a = b; } extra", "unexpected text after", 1),
            ("/* only a comment", "there is no property list", 1),
            ("", "there is no property list", 1),
            ("{ a = ; }", "unexpected character ';'", 1),
            (String(repeating: "(", count: 100_000), "nested more than 200 deep", 1),
        ]
        for (text, reason, line) in cases {
            #expect {
                _ = try parse(text)
            } throws: { error in
                guard let failure = error as? GNUstepPropertyList.Failure else { return false }
                return failure.reason.contains(reason) && failure.line == line
            }
        }
        #expect(throws: GNUstepPropertyList.Failure.self) { try GNUstepPropertyList.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }

    static let gnustepApp = [
        "Ink.app/Resources/Info-gnustep.plist": """
            {
                CFBundleIdentifier = org.gnustep.Ink;
                NSExecutable = Ink;
                Answer = <*I42>;
                Ratio = <*R0.5>;
                Editable = <*BY>;
                Built = <*D2024-01-02 03:04:05 +0100>;
            }
            """,
        "Ink.app/Ink": "",
        "Ink.app/Resources/ink.png": "",
    ]

    @Test("an app whose Info-gnustep.plist uses <*I42> shows 42 as an integer in the apple profile, with no build warning")
    func gnustepInfoPlistIsTyped() throws {
        let f = try BundleFixture(Self.gnustepApp)
        let summary = try f.build()
        #expect(summary.warnings.isEmpty, "\(summary.warnings)")
        let ink = try f.bundle("Ink.app", context: .apple())
        #expect(try ink.object(forInfoDictionaryKey: "Answer") == .integer(42))
        #expect(try ink.object(forInfoDictionaryKey: "Ratio") == .real(0.5))
        #expect(try ink.object(forInfoDictionaryKey: "Editable") == .bool(true))
        #expect(ink.bundleIdentifier == "org.gnustep.Ink")
        // Foundation on Linux reads no Info-gnustep.plist: the foundation-linux profile sees none.
        #expect(try f.bundle("Ink.app").object(forInfoDictionaryKey: "Answer") == nil)
        let cli = try run([bundleidxBinary, "info", f.root + "/Ink.app", "Answer", "--json", "--profile", "apple",
                           "--index", f.indexPath])
        #expect(cli.status == 0 && cli.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "42", "\(cli)")
        let built = try run([bundleidxBinary, "build", f.root, "--index", f.indexPath])
        // Nothing on standard error at all: CoreFoundation's parser, tried on a text with typed
        // values, would log "Old-style plist parser: missing semicolon …" there itself.
        #expect(built.status == 0 && built.stderr.isEmpty && !built.stdout.contains("warning"), "\(built)")
    }

    @Test("a malformed Info-gnustep.plist is indexed empty with a warning that says why and where")
    func malformedGNUstepInfoPlistWarns() throws {
        let f = try BundleFixture(["Bad.app/Resources/Info-gnustep.plist": "{\n  Answer = <*Iforty-two>;\n}", "Bad.app/Bad": ""])
        let summary = try f.build()
        #expect(summary.warnings.contains { $0.contains("Info-gnustep.plist is not a valid property list: "
                                                        + "<*Iforty-two> is not an integer (or is out of range) (line 2)") },
                "\(summary.warnings)")
        #expect(try f.bundle("Bad.app", context: .apple()).object(forInfoDictionaryKey: "Answer") == nil)
    }
}
