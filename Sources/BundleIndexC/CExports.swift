import BundleIndexCore
import BundleIndexJSON

import Glibc

// The functions include/bundleidx.h declares, exported under their C names. Each checks its
// arguments, clears its outputs, calls the library and turns what it throws into a code; the
// contract (ownership, NULLs, threads) is the header's.

/// `const char *`: a NUL-terminated UTF-8 argument.
public typealias CString = UnsafePointer<CChar>
/// `char **`: where a function stores a string the caller then owns.
public typealias CStringOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

/// Opens an index read-only under a profile (`bundleidx_open` in include/bundleidx.h).
@c(bundleidx_open)
public func bundleidxOpen(_ indexDirectory: CString?, _ profile: CString?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return CResult.argument }
    out.pointee = nil
    guard case let .some(directory) = CText.optional(indexDirectory), case let .some(profileName) = CText.optional(profile),
          let rules = SearchContext.Profile(rawValue: profileName ?? SearchContext.Profile.apple.rawValue) else {
        return CResult.argument
    }
    do {
        let reader = try IndexReader(path: directory ?? IndexLocation.default)
        out.pointee = Unmanaged.passRetained(IndexHandle(reader: reader, profile: rules)).opaque
        return CResult.ok
    } catch {
        return CResult.code(for: error)
    }
}

/// Releases an index handle (`bundleidx_close`).
@c(bundleidx_close)
public func bundleidxClose(_ index: OpaquePointer?) {
    Unmanaged<IndexHandle>.handle(index)?.release()
}

/// Maps the whole index into the process (`bundleidx_warm_up`; `IndexReader.warmUp`).
@c(bundleidx_warm_up)
public func bundleidxWarmUp(_ index: OpaquePointer?, _ outBytes: UnsafeMutablePointer<Int>?) -> Int32 {
    outBytes?.pointee = 0
    guard let handle = Unmanaged<IndexHandle>.handle(index)?.takeUnretainedValue() else { return CResult.argument }
    do {
        let bytes = try handle.reader.warmUp()
        outBytes?.pointee = bytes
        return CResult.ok
    } catch {
        return CResult.code(for: error)
    }
}

/// Sets the apple profile's languages for bundles opened later (`bundleidx_set_languages`).
@c(bundleidx_set_languages)
public func bundleidxSetLanguages(_ index: OpaquePointer?, _ commaSeparated: CString?) -> Int32 {
    guard let handle = Unmanaged<IndexHandle>.handle(index)?.takeUnretainedValue(),
          case let .some(list) = CText.optional(commaSeparated) else { return CResult.argument }
    let languages = list.map(IndexHandle.languages(commaSeparated:))
    return handle.setLanguages(languages) ? CResult.ok : CResult.argument
}

/// Opens a bundle by path or identifier (`bundleidx_bundle_open`).
@c(bundleidx_bundle_open)
public func bundleidxBundleOpen(_ index: OpaquePointer?, _ reference: CString?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return CResult.argument }
    out.pointee = nil
    guard let handle = Unmanaged<IndexHandle>.handle(index)?.takeUnretainedValue(),
          case let .some(name?) = CText.optional(reference) else { return CResult.argument }
    do {
        guard let bundle = try handle.reader.bundle(name, context: handle.context) else { return CResult.notFound }
        out.pointee = Unmanaged.passRetained(BundleHandle(bundle)).opaque
        return CResult.ok
    } catch {
        return CResult.code(for: error)
    }
}

/// Releases a bundle handle (`bundleidx_bundle_close`).
@c(bundleidx_bundle_close)
public func bundleidxBundleClose(_ bundle: OpaquePointer?) {
    Unmanaged<BundleHandle>.handle(bundle)?.release()
}

/// `Bundle.path(forResource:ofType:inDirectory:[forLocalization:])` (`bundleidx_path_for_resource`).
@c(bundleidx_path_for_resource)
public func bundleidxPathForResource(_ bundle: OpaquePointer?, _ name: CString?, _ type: CString?, _ subdirectory: CString?,
                                     _ localization: CString?, _ out: CStringOut?) -> Int32 {
    guard let out else { return CResult.argument }
    out.pointee = nil
    guard let handle = Unmanaged<BundleHandle>.handle(bundle),
          case let .some(name) = CText.optional(name), case let .some(type) = CText.optional(type),
          case let .some(subdirectory) = CText.optional(subdirectory),
          case let .some(localization) = CText.optional(localization) else { return CResult.argument }
    do {
        // The bundle handle is borrowed for the call (no retain): the caller keeps it open.
        // The String-returning lookups keep their answers until the next commit (AnswerCache;
        // those of the kept directory tables from their second ask), so a repeated lookup
        // costs a hash and a copy.
        let copied: UnsafeMutablePointer<CChar>?? = try handle._withUnsafeGuaranteedRef { h in
            if let localization {
                return try h.bundle.path(forResource: name, ofType: type, inDirectory: subdirectory,
                                         forLocalization: localization).map { CText.copy($0) }
            }
            return try h.bundle.path(forResource: name, ofType: type, inDirectory: subdirectory).map { CText.copy($0) }
        }
        guard let found = copied else { return CResult.notFound }
        guard let path = found else { return CResult.noMemory }
        out.pointee = path
        return CResult.ok
    } catch {
        return CResult.code(for: error)
    }
}

/// `Bundle.paths(forResourcesOfType:inDirectory:[forLocalization:])` (`bundleidx_paths_for_resources`).
@c(bundleidx_paths_for_resources)
public func bundleidxPathsForResources(_ bundle: OpaquePointer?, _ type: CString?, _ subdirectory: CString?, _ localization: CString?,
                                       _ outPaths: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?,
                                       _ outCount: UnsafeMutablePointer<Int>?) -> Int32 {
    guard let outPaths, let outCount else { return CResult.argument }
    outPaths.pointee = nil
    outCount.pointee = 0
    guard let handle = Unmanaged<BundleHandle>.handle(bundle)?.takeUnretainedValue(),
          case let .some(type) = CText.optional(type), case let .some(subdirectory) = CText.optional(subdirectory),
          case let .some(localization) = CText.optional(localization) else { return CResult.argument }
    let paths: [String]
    do {
        paths = try localization.map { try handle.bundle.paths(forResourcesOfType: type, inDirectory: subdirectory, forLocalization: $0) }
            ?? handle.bundle.paths(forResourcesOfType: type, inDirectory: subdirectory)
    } catch {
        return CResult.code(for: error)
    }
    guard !paths.isEmpty else { return CResult.ok }
    guard let array = CText.copy(paths) else { return CResult.noMemory }
    outPaths.pointee = array
    outCount.pointee = paths.count
    return CResult.ok
}

/// `Bundle.object(forInfoDictionaryKey:)` as text (`bundleidx_info_string`).
@c(bundleidx_info_string)
public func bundleidxInfoString(_ bundle: OpaquePointer?, _ key: CString?, _ out: CStringOut?) -> Int32 {
    guard let out else { return CResult.argument }
    out.pointee = nil
    guard let handle = Unmanaged<BundleHandle>.handle(bundle)?.takeUnretainedValue(),
          case let .some(key?) = CText.optional(key) else { return CResult.argument }
    do {
        guard let value = try handle.bundle.object(forInfoDictionaryKey: key) else { return CResult.notFound }
        // As `bundleidx info BUNDLE KEY` prints it: strings as they are, other values as JSON.
        let text: String
        if case .string(let s) = value { text = s } else { text = JSONText(value).description }
        guard let copy = CText.copy(text) else { return CResult.noMemory }
        out.pointee = copy
        return CResult.ok
    } catch {
        return CResult.code(for: error)
    }
}

/// `Bundle.localizedString(forKey:value:table:)` (`bundleidx_localized_string`): the entry, or
/// Foundation's default with `BUNDLEIDX_NOT_FOUND`.
@c(bundleidx_localized_string)
public func bundleidxLocalizedString(_ bundle: OpaquePointer?, _ key: CString?, _ value: CString?, _ table: CString?,
                                     _ out: CStringOut?) -> Int32 {
    guard let out else { return CResult.argument }
    out.pointee = nil
    guard let handle = Unmanaged<BundleHandle>.handle(bundle)?.takeUnretainedValue(),
          case let .some(key?) = CText.optional(key), case let .some(value) = CText.optional(value),
          case let .some(table) = CText.optional(table) else { return CResult.argument }
    do {
        let entry = try handle.bundle.localizedStringEntry(forKey: key, table: table)
        let answer = try entry ?? handle.bundle.localizedString(forKey: key, value: value, table: table)
        guard let copy = CText.copy(answer) else { return CResult.noMemory }
        out.pointee = copy
        return entry == nil ? CResult.notFound : CResult.ok
    } catch {
        return CResult.code(for: error)
    }
}

/// The sentence naming a return code (`bundleidx_strerror`).
@c(bundleidx_strerror)
public func bundleidxStrerror(_ code: Int32) -> CString {
    UnsafeRawPointer(CResult.message(code).utf8Start).assumingMemoryBound(to: CChar.self)
}

/// Releases a string the library returned (`bundleidx_free`).
@c(bundleidx_free)
public func bundleidxFree(_ pointer: UnsafeMutableRawPointer?) {
    free(pointer)
}

/// Releases a path array and its strings (`bundleidx_free_paths`).
@c(bundleidx_free_paths)
public func bundleidxFreePaths(_ paths: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ count: Int) {
    guard let paths else { return }
    for i in 0..<count { free(paths[i]) }
    free(paths)
}
