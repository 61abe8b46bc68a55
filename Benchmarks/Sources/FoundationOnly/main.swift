// A Swift program that only imports Foundation: bundleidx links Foundation too (property lists,
// JSON), so this is the startup bundleidx cannot avoid without dropping Foundation.
import Foundation

print("hello")
