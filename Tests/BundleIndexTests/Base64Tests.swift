// The JSON faces' base64 encoder (no Foundation in them) against Foundation's, byte for byte.
import Foundation
import Testing
@testable import BundleIndexJSON

@Suite("base64 for {\"$data\": …} values")
struct Base64Tests {
    @Test("every length from 0 to 300 bytes, random content, and the RFC 4648 test vectors: Foundation's text")
    func agreesWithFoundation() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func nextByte() -> UInt8 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        for length in 0...300 {
            for _ in 0..<8 {
                let bytes = (0..<length).map { _ in nextByte() }
                #expect(Base64.encode(bytes) == Data(bytes).base64EncodedString(), "\(bytes)")
            }
        }
        for (plain, encoded) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
                                 ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")] {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
        }
        #expect(Base64.encode([0xFF, 0xFE, 0xFD]) == "//79", "the two last characters of the alphabet")
    }
}
