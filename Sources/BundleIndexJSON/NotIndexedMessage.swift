import Glibc

/// The sentence for a bundle reference no indexed bundle answers to, as `bundleidx query` and
/// `query --batch` say it. `Bundle(path:)` takes any folder for a bundle, the scan only those it
/// recognises (docs/scanning.md), so for an existing folder the sentence names the command that
/// indexes it (`bundleidx build --bundle DIR`); for anything else it is
/// `bundle not in the index: X` followed by `otherwise`.
public func notIndexedMessage(_ reference: String, otherwise: String = "") -> String {
    var st = stat()
    guard reference.contains("/"), stat(reference, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
        return "bundle not in the index: \(reference)" + otherwise
    }
    return "bundle not in the index: \(reference) is a folder the index does not hold as a bundle; "
        + "index it with: bundleidx build --bundle \(reference)"
}
