// The third candidate: BatchRequest and JSONOutput, the codec of Sources/BundleIndexJSON
// (this harness is compiled with those two files; run names them).

struct NarrowCandidate: Candidate {
    let label = "BatchRequest/JSONOutput"
    var request = BatchRequest()
    var output = JSONOutput()
    mutating func line(_ bytes: [UInt8], into out: inout [UInt8]) -> Bool {
        do {
            try request.decode(bytes)
        } catch {
            return false
        }
        var f = Fields()
        for member in request.members {
            switch (member.key, member.value) {
            case ("bundle", .string(let s)): f.bundle = s
            case ("op", .string(let s)): f.op = s
            case ("name", .string(let s)): f.name = s
            case ("type", .string(let s)): f.type = s
            case ("dir", .string(let s)): f.dir = s
            case ("loc", _): f.hasLoc = true
            default: break
            }
        }
        output.reset()
        output.string(answerPath(f))
        output.byte(10)
        out.append(contentsOf: output.bytes)
        return true
    }
}

func makeCandidates() -> [any Candidate] { [SerializationCandidate(), CodableCandidate(), NarrowCandidate()] }
