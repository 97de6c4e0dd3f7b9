#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import TandemProtocol

/// A `SyncPersistence` in one folder: `state.json` holds the saved state (JSON, with its format number)
/// and `lock` keeps a second session — in this process or another — from using the folder at once.
///
/// A save writes `state.json.tmp`, fsyncs it, renames it over `state.json` and fsyncs the folder, so the
/// file on disk is always a whole state, the old one or the new one. Saves run one at a time on a queue
/// of their own, never on the caller's thread.
public final class FileSyncPersistence: SyncPersistence {
    /// The folder.
    public let folder: String
    /// The state found when the folder was opened (nil for a new folder).
    public let saved: SyncSavedState?
    /// The locked descriptor; -1 once closed. Read and written on `queue` only (and by `deinit`).
    nonisolated(unsafe) private var lock: Int32
    private let queue = DispatchQueue(label: "tandem.sync-persistence")

    /// The state file's name in the folder.
    public static let stateFile = "state.json"

    /// Opens (creating it when needed) and locks `folder`, and reads the state saved there.
    /// - Throws: `.locked` when another session holds the folder, `.unsupportedFormat` for a state of a
    ///   format this version does not know (the file is left untouched), `.unreadable` for a damaged file,
    ///   `.io` when the folder cannot be created or locked.
    public init(folder: String) throws(SyncPersistenceError) {
        self.folder = folder
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .io(operation: "create the folder", path: folder, errno: EIO)
        }
        let lockPath = "\(folder)/lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .io(operation: "open", path: lockPath, errno: errno) }
        // A child process that another thread is starting holds a copy of every descriptor for an instant,
        // and with it the lock of a folder just released: a held lock is asked for again for 200 ms.
        var tries = 0
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            tries += 1
            if code == EWOULDBLOCK, tries < 20 {
                usleep(10_000)
                continue
            }
            closeDescriptor(descriptor)
            throw code == EWOULDBLOCK ? .locked(folder: folder) : .io(operation: "lock", path: lockPath, errno: code)
        }
        lock = descriptor
        do {
            saved = try Self.read("\(folder)/\(Self.stateFile)", folder: folder)
        } catch {
            closeDescriptor(descriptor)
            throw error
        }
        unlink("\(folder)/\(Self.stateFile).tmp")  // a save cut short by a crash
    }

    deinit {
        if lock >= 0 { closeDescriptor(lock) }  // releases the lock
    }

    /// Releases the folder after the saves queued before it; later saves fail with `.io` (`EBADF`), as
    /// another session may own the folder by then.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                if self.lock >= 0 {
                    closeDescriptor(self.lock)
                    self.lock = -1
                }
                continuation.resume()
            }
        }
    }

    /// Writes `state` atomically (see the type's description), off the caller's thread.
    public func save(_ state: SyncSavedState) async throws(SyncPersistenceError) {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, SyncPersistenceError>, Never>) in
            queue.async {
                do throws(SyncPersistenceError) {
                    guard self.lock >= 0 else { throw .io(operation: "save after close", path: self.folder, errno: EBADF) }
                    try self.write(state)
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        try result.get()
    }

    private func write(_ state: SyncSavedState) throws(SyncPersistenceError) {
        let path = "\(folder)/\(Self.stateFile)"
        let temporary = path + ".tmp"
        let bytes: [UInt8]
        do {
            bytes = try JSONValueEncoder().encode(state).serializedBytes()
        } catch {
            throw .unreadable(path: path, reason: "the state could not be encoded: \(error)")
        }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .io(operation: "create", path: temporary, errno: errno) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                closeDescriptor(descriptor)
                throw .io(operation: "write", path: temporary, errno: code)
            }
            offset += written
        }
        guard fsync(descriptor) == 0 else {
            let code = errno
            closeDescriptor(descriptor)
            throw .io(operation: "fsync", path: temporary, errno: code)
        }
        closeDescriptor(descriptor)
        guard rename(temporary, path) == 0 else { throw .io(operation: "rename into place", path: path, errno: errno) }
        // The rename itself is durable only once the folder is synced.
        let directory = open(folder, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            closeDescriptor(directory)
        }
    }

    private static func read(_ path: String, folder: String) throws(SyncPersistenceError) -> SyncSavedState? {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) { throw .io(operation: "read", path: path, errno: EACCES) }
            return nil
        }
        let json: JSONValue
        do {
            json = try JSONValue.parseStored(Array(data))
        } catch {
            throw .unreadable(path: path, reason: "not JSON (\(error))")
        }
        guard let format = json["format"]?.doubleValue else { throw .unreadable(path: path, reason: "no format number") }
        guard format == Double(SyncSavedState.currentFormat) else {
            throw .unsupportedFormat(found: Int(exactly: format) ?? -1, folder: folder)
        }
        do {
            return try JSONValueDecoder().decode(SyncSavedState.self, from: json)
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }
}

@inline(__always)
private func systemWrite(_ descriptor: Int32, _ base: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, base, count)
}

/// `close(2)`, under a name the type's own `close()` does not hide.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
