extension FileStamp {
    /// True when every stamp, relative to `bundle`, still matches the disk: the watcher's
    /// catch-up and the incremental build ask it before keeping what the index holds for a bundle.
    static func allMatch(_ stamps: [FileStamp], in bundle: String) -> Bool {
        for stamp in stamps {
            let path = stamp.path.isEmpty ? bundle : bundle + "/" + stamp.path
            if FileSystem.modificationTime(path) != stamp.modificationTime { return false }
        }
        return true
    }
}
