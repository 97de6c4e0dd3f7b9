import Foundation
import TandemDoctor

/// The files `tandem doctor` reads, found and parsed: the Podfile, its lock, the podspecs and the
/// SwiftPM resolution, each from the path given or from where CocoaPods and Xcode put it.
struct DoctorInputs {
    /// Where each input was read from, in the order read (for the report).
    var read: [String] = []
    var podfile: Podfile
    var lock: Lockfile
    var specs: [PodSpec] = []
    var packages: PackageResolved?

    /// What could not be read, as a person can act on it.
    enum Failure: Error, CustomStringConvertible {
        case missing(String, what: String)
        case unreadable(String)
        case invalid(DoctorInputError)

        var description: String {
            switch self {
            case .missing(let path, let what): "\(path): no such file (\(what))"
            case .unreadable(let path): "\(path): cannot be read as UTF-8 text"
            case .invalid(let error): "\(error)"
            }
        }
    }

    /// Reads the inputs. `lock` defaults to `Podfile.lock` next to the Podfile; `specs` to its
    /// `Pods/Local Podspecs`; `packageResolved` to the first `Package.resolved` of a workspace or project
    /// next to it (or beside it), when there is one.
    init(podfile podfilePath: String, lock lockPath: String?, specs specsPath: String?, packageResolved: String?,
         files: FileManager = .default) throws(Failure) {
        let folder = (podfilePath as NSString).deletingLastPathComponent
        func near(_ name: String) -> String { folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name) }
        func text(_ path: String, what: String) throws(Failure) -> String {
            guard files.fileExists(atPath: path) else { throw .missing(path, what: what) }
            guard let data = files.contents(atPath: path), let text = String(data: data, encoding: .utf8) else { throw .unreadable(path) }
            return text
        }
        func parse<Value>(_ body: () throws(DoctorInputError) -> Value) throws(Failure) -> Value {
            do { return try body() } catch { throw .invalid(error) }
        }

        let podfileText = try text(podfilePath, what: "the Podfile; name it with --podfile")
        podfile = try parse { () throws(DoctorInputError) in try Podfile(parsing: podfileText, file: podfilePath) }
        read.append(podfilePath)
        let lockFile = lockPath ?? near("Podfile.lock")
        let lockText = try text(lockFile, what: "the Podfile's lock, written by `pod install`; name it with --lock")
        lock = try parse { () throws(DoctorInputError) in try Lockfile(parsing: lockText, file: lockFile) }
        read.append(lockFile)

        let specsFolder = specsPath ?? near("Pods/Local Podspecs")
        if specsPath != nil || files.fileExists(atPath: specsFolder) {
            var isFolder: ObjCBool = false
            guard files.fileExists(atPath: specsFolder, isDirectory: &isFolder) else {
                throw .missing(specsFolder, what: "podspecs in JSON: a .podspec.json file or a folder of them")
            }
            var paths = [specsFolder]
            if isFolder.boolValue {
                paths = (files.enumerator(atPath: specsFolder)?.compactMap { $0 as? String } ?? [])
                    .filter { $0.hasSuffix(".podspec.json") }.sorted()
                    .map { (specsFolder as NSString).appendingPathComponent($0) }
            }
            for path in paths {
                let specText = try text(path, what: "a podspec")
                specs.append(try parse { () throws(DoctorInputError) in try PodSpec(json: specText, file: path) })
            }
            read.append("\(specsFolder) (\(specs.count) podspec\(specs.count == 1 ? "" : "s"))")
        }

        if let resolved = packageResolved ?? Self.packageResolved(near: folder, files: files) {
            let resolvedText = try text(resolved, what: "SwiftPM's Package.resolved; name it with --package-resolved")
            packages = try parse { () throws(DoctorInputError) in try PackageResolved(parsing: resolvedText, file: resolved) }
            read.append(resolved)
        }
    }

    /// Where Xcode keeps the resolution of a workspace's or project's packages in `folder` (or a
    /// `Package.resolved` lying there).
    private static func packageResolved(near folder: String, files: FileManager) -> String? {
        let entries = ((try? files.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []).sorted()
        let names = ["Package.resolved"]
            + entries.filter { $0.hasSuffix(".xcworkspace") }.map { "\($0)/xcshareddata/swiftpm/Package.resolved" }
            + entries.filter { $0.hasSuffix(".xcodeproj") }.map { "\($0)/project.xcworkspace/xcshareddata/swiftpm/Package.resolved" }
        return names.map { folder.isEmpty ? $0 : (folder as NSString).appendingPathComponent($0) }.first { files.fileExists(atPath: $0) }
    }
}
