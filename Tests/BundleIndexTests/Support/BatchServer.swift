// A `bundleidx query --batch` process driven as an interactive client drives it: one line
// written, then its answer read before the next line is sent.
import Foundation

final class BatchServer {
    private let process = Process()
    private let input = Pipe(), output = Pipe()

    /// Starts the batch on the index at `indexPath`. It is killed after 20 s: an answer held
    /// back would otherwise hang the test instead of failing it.
    init(indexPath: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        process.arguments = ["-s", "KILL", "20", bundleidxBinary, "query", "--batch", "--index", indexPath]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit {
        input.fileHandleForWriting.closeFile()
        process.waitUntilExit()
    }

    /// Sends `line` and a newline, and returns what came back up to the first newline, that
    /// included (less, without a newline, when the server ended first).
    func ask(_ line: String) -> Data {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        var answer = Data()
        while !answer.contains(10) {
            let more = output.fileHandleForReading.availableData
            if more.isEmpty { break }   // the server ended (killed): no answer came
            answer.append(more)
        }
        return answer
    }
}
