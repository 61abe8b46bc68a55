// Output nobody can take: a full disk, a closed pipe, a stream the process was started without.
// Every command says so and exits 5 (a system call failed), never 0 with the output lost and
// never killed by SIGPIPE; no index file takes the place of a missing standard stream.
import Foundation
import Testing
@testable import BundleIndex
@testable import BundleIndexCore

@Suite("Standard streams that fail", .serialized)
struct StandardStreamsTests {
    static let phone = "com.example.phone"

    /// An indexed fixture, and a shell line run with `$B` the `bundleidx` binary and `$I` the
    /// index; the line ends by printing its status as `rc=N` on standard error.
    final class Shell {
        let fixture: BundleFixture

        init() throws {
            fixture = try CLITests.fixture()
            try fixture.build()
        }

        func run(_ line: String) throws -> (status: Int32, stderr: String) {
            let result = try BundleIndexTests.run(["sh", "-c", line + "; echo rc=$? >&2"],
                                                  environment: ["B": bundleidxBinary, "I": fixture.indexPath])
            let status = result.stderr.split(separator: "\n").last { $0.hasPrefix("rc=") }.flatMap { Int32($0.dropFirst(3)) }
            return (status ?? -1, result.stderr)
        }
    }

    @Test("a full disk under standard output: a message and exit 5, for the plain query, the full command line and the batch")
    func fullDisk() throws {
        let shell = try Shell()
        for line in ["$B query --index $I \(Self.phone) icon --type png >/dev/full",
                     "$B bundles --index $I >/dev/full",
                     "$B stats --index $I --json >/dev/full",
                     "echo '{\"bundle\":\"\(Self.phone)\",\"op\":\"path\",\"name\":\"icon.png\"}' | $B query --batch --index $I >/dev/full"] {
            let (status, stderr) = try shell.run(line)
            #expect(status == 5, "\(line): \(stderr)")
            #expect(stderr.contains("No space left on device"), "\(line): \(stderr)")
        }
    }

    @Test("help that cannot be written: a message and exit 5, as for any output")
    func helpToFullDisk() throws {
        let shell = try Shell()
        // Before: exit 0 with nothing written (ArgumentParser wrote the help and exited).
        for line in ["$B --help >/dev/full", "$B help query >/dev/full", "$B build --help >/dev/full", "$B query --help >/dev/full"] {
            let (status, stderr) = try shell.run(line)
            #expect(status == 5 && stderr.contains("No space left on device"), "\(line): \(status) \(stderr)")
        }
        let help = try shell.run("$B help query | grep -c 'USAGE: bundleidx query' >&2")
        #expect(help.stderr.hasPrefix("1\n"), "\(help.stderr)")
    }

    @Test("a pipe whose reader has gone: a message and exit 5, not a death by SIGPIPE")
    func closedPipe() throws {
        let shell = try Shell()
        // `true` exits at once, so the pipe has no reader by the time bundleidx writes.
        for line in ["(sleep 0.3; $B query --index $I \(Self.phone) icon --type png; echo rc=$? >&2) | true",
                     "(sleep 0.3; $B bundles --index $I; echo rc=$? >&2) | true",
                     "(sleep 0.3; echo '{\"bundle\":\"\(Self.phone)\",\"op\":\"path\",\"name\":\"icon.png\"}' | $B query --batch --index $I; echo rc=$? >&2) | true"] {
            let result = try BundleIndexTests.run(["sh", "-c", line], environment: ["B": bundleidxBinary, "I": shell.fixture.indexPath])
            #expect(result.stderr.contains("rc=5"), "\(line): \(result.stderr)")
            #expect(result.stderr.contains("Broken pipe"), "\(line): \(result.stderr)")
        }
    }

    @Test("a process started without standard input or output: the index never takes their place")
    func closedStreams() throws {
        let shell = try Shell()
        // Standard input closed: the batch fails to read it, instead of reading data.mdb as requests.
        let batch = try shell.run("$B query --batch --index $I <&-")
        #expect(batch.status == 5, "\(batch.stderr)")
        #expect(batch.stderr.contains("Bad file descriptor") && !batch.stderr.contains("malformed"), "\(batch.stderr)")
        // Standard output closed: the answer cannot be written, and that is said.
        for line in ["$B query --index $I \(Self.phone) icon --type png >&-", "$B bundles --index $I >&-"] {
            let (status, stderr) = try shell.run(line)
            #expect(status == 5, "\(line): \(stderr)")
            #expect(stderr.contains("cannot write the output"), "\(line): \(stderr)")
        }
        // Standard error closed: the answer is still written, and the status tells the rest.
        let quiet = try BundleIndexTests.run(["sh", "-c", "$B query --index $I \(Self.phone) nope --type png 2>&-; echo rc=$?"],
                                            environment: ["B": bundleidxBinary, "I": shell.fixture.indexPath])
        #expect(quiet.stdout == "rc=1\n", "\(quiet.stdout)")
    }

    @Test("output and messages keep the order they were written in when both go to one pipe")
    func order() throws {
        let shell = try Shell()
        // Two differences between the index and the disk, then their count on standard error.
        _ = FileManager.default.createFile(atPath: shell.fixture.root + "/Phone.app/new-1.png", contents: nil)
        _ = FileManager.default.createFile(atPath: shell.fixture.root + "/Phone.app/new-2.png", contents: nil)
        let result = try BundleIndexTests.run(["sh", "-c", "$B verify --index $I 2>&1 | cat"],
                                              environment: ["B": bundleidxBinary, "I": shell.fixture.indexPath])
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count >= 2, "\(result.stdout)")
        #expect(lines.last?.contains("difference(s) between the index and the disk") == true, "\(result.stdout)")
    }
}
