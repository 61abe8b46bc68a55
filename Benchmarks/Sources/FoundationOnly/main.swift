// A Swift program that only uses Foundation: bundleidx links Foundation too (property lists,
// JSON), so this is the startup bundleidx cannot avoid without dropping Foundation.
// It makes one call into Foundation: built like bundleidx (statically), a program that imports
// Foundation without using it leaves Foundation out entirely and measures like hello-world.
import Foundation

print(NSString(string: "hello").length)
