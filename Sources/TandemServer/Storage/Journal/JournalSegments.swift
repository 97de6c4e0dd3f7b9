#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The journal's files: a folder of append-only segments named by the position of their first record
/// (`00000000000000000001.log`, …). Records are appended to the newest segment; once it passes
/// `segmentBytes` the next record starts a new one, and a segment is deleted when storage holds all of
/// its records.
///
/// A segment is deleted in pieces: renamed out of the journal (`.discarded`), shrunk `deletionStep` bytes at a
/// time with a yield point between steps (`SQLiteYieldPoints`), then unlinked. Unlinking an 8 MB file in one
/// call took 1.4–2 ms of kernel time, during which an event loop that had yielded the core to the materializer
/// could not get it back (docs/bench/relays-profile.md). The rename comes first so that a crash mid-way never
/// leaves a shortened segment in the journal (a torn record before its end would refuse to open); opening
/// deletes what a crash left.
///
/// Thread-safety: `append` has one caller at a time (the commit lane); `discard(through:)` may run on
/// another thread (the materializer); the segment list is guarded by a lock.
final class JournalSegments: @unchecked Sendable {
    private let folder: String
    private let segmentBytes: Int
    private let syncEachAppend: Bool
    /// Presses a descriptor's data to disk (`fdatasync`; tests count the calls).
    private let synchronize: @Sendable (Int32) -> Int32
    /// How much of a discarded segment one `ftruncate` frees.
    static let deletionStep = 256 << 10
    /// The suffix of a segment being deleted.
    static let discardedSuffix = ".discarded"
    private let lock = NSLock()
    /// Guarded by `lock`: the first position of every segment file, oldest first; the last is being written.
    private var firsts: [UInt64] = []
    /// Only `append` uses these (one caller at a time).
    private var descriptor: Int32 = -1
    private var written = 0
    /// The open `LOCK` file whose `flock` keeps a second server out of the folder; -1 when not held.
    private var lockDescriptor: Int32 = -1

    /// Opens the folder (creating it if needed) for records from `nextPosition` on; call after `readAll`
    /// and after its records are safely stored elsewhere, since it deletes the segments found.
    /// - Parameters:
    ///   - syncEachAppend: fdatasync after every append (survives power loss, at a disk flush per commit).
    ///   - synchronize: what presses an appended record to disk: `fdatasync`, or a test's counting stand-in.
    init(folder: String, segmentBytes: Int, syncEachAppend: Bool, synchronize: @escaping @Sendable (Int32) -> Int32 = { fdatasync($0) }) {
        self.folder = folder
        self.segmentBytes = segmentBytes
        self.syncEachAppend = syncEachAppend
        self.synchronize = synchronize
    }

    deinit {
        release()
    }

    /// Takes the folder for this process (creating it if needed): a second server opening the same data
    /// folder would replay and delete segments the first is still writing.
    /// - Throws: `StorageError.journal` when another process holds it, or the folder cannot be used.
    func claimFolder() throws(StorageError) {
        _ = try segmentNames()
        let path = folder + "/LOCK"
        let fd = PrivateFiles.open(path, O_RDWR | O_CREAT)
        guard fd >= 0 else { throw .journal("cannot open \(path): \(String(cString: strerror(errno)))") }
        // A child process that another thread is starting holds a copy of every descriptor for an instant,
        // and with it the lock of a folder just released: a held lock is asked for again for 200 ms.
        var tries = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let reason = errno
            tries += 1
            if reason == EWOULDBLOCK, tries < 20 {
                usleep(10_000)
                continue
            }
            close(fd)
            if reason == EWOULDBLOCK {
                throw .journal("\(folder) is in use by another Tandem server; stop it, or give this one its own data folder")
            }
            throw .journal("cannot lock \(path): \(String(cString: strerror(reason)))")
        }
        lockDescriptor = fd
        // Segments a crash caught while they were being deleted: their records were stored.
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in leftovers where name.hasSuffix(Self.discardedSuffix) { unlink(folder + "/" + name) }
    }

    /// Closes the segment being written and lets another process take the folder.
    func release() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        if lockDescriptor >= 0 { close(lockDescriptor) }
        lockDescriptor = -1
    }

    /// Every whole record in the folder, in position order. A record cut short at the end of the newest
    /// segment (a crash during its write; it was never acknowledged) ends the list.
    /// - Throws: `StorageError.journal` when a file cannot be read or an older segment is damaged.
    func readAll() throws(StorageError) -> [JournalRecord] {
        var records: [JournalRecord] = []
        let names = try segmentNames()
        for (index, name) in names.enumerated() {
            let path = folder + "/" + name
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .journal("cannot read \(path)")
            }
            let bytes = [UInt8](data)
            var offset = 0
            reading: while true {
                switch JournalRecord.decode(bytes, at: offset) {
                case .record(let record, let next):
                    if let last = records.last, record.position != last.position + 1 {
                        throw .journal("\(path): record \(record.position) follows \(last.position); the journal is not continuous")
                    }
                    records.append(record)
                    offset = next
                case .end:
                    break reading
                case .torn:
                    guard index == names.count - 1 else {
                        throw .journal("\(path) is damaged at byte \(offset), and newer segments follow it")
                    }
                    break reading
                }
            }
        }
        return records
    }

    /// Deletes every segment file (their records are stored elsewhere now).
    func removeAll() throws(StorageError) {
        for name in try segmentNames() { unlink(folder + "/" + name) }
        lock.withLock { firsts = [] }
    }

    /// Appends one record's bytes; starts a new segment first when the current one is full.
    /// - Throws: `StorageError.journal` when the write fails (disk full, I/O error): the record is not stored.
    func append(_ bytes: [UInt8], position: UInt64) throws(StorageError) {
        if descriptor < 0 || written >= segmentBytes { try startSegment(at: position) }
        var done = 0
        let failure: Int32? = bytes.withUnsafeBytes { raw in
            while done < raw.count {
                let count = write(descriptor, raw.baseAddress! + done, raw.count - done)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += count
            }
            return nil
        }
        written += done
        if let failure {
            // A partial record would hide every later one from `readAll`: cut it off and start afresh.
            if done > 0 { _ = ftruncate(descriptor, off_t(written - done)) }
            written -= done
            throw .journal("writing the journal failed: \(String(cString: strerror(failure)))")
        }
        if syncEachAppend, synchronize(descriptor) != 0 {
            throw .journal("fdatasync of the journal failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Deletes the segments whose records all have positions up to `position`.
    func discard(through position: UInt64) {
        let doomed: [UInt64] = lock.withLock {
            var count = 0
            // A segment is complete when a newer one exists; it ends just before the next one's first record.
            while count + 1 < firsts.count, firsts[count + 1] - 1 <= position { count += 1 }
            defer { firsts.removeFirst(count) }
            return Array(firsts.prefix(count))
        }
        for first in doomed { delete(folder + "/" + Self.name(first)) }
    }

    /// Deletes the segment file at `path` in pieces (see the type's comment); on any failure, at once.
    private func delete(_ path: String) {
        let doomed = path + Self.discardedSuffix
        guard rename(path, doomed) == 0 else {
            unlink(path)
            return
        }
        let fd = open(doomed, O_WRONLY | O_CLOEXEC)
        if fd >= 0 {
            var size = Int(lseek(fd, 0, SEEK_END))
            while size > Self.deletionStep {
                size -= Self.deletionStep
                guard ftruncate(fd, off_t(size)) == 0 else { break }
                SQLiteYieldPoints.yieldPoint()
            }
            close(fd)
        }
        unlink(doomed)
    }

    /// Segment files now in the folder (tests look).
    var segmentCount: Int { lock.withLock { firsts.count } }

    private func startSegment(at position: UInt64) throws(StorageError) {
        let path = folder + "/" + Self.name(position)
        let fd = PrivateFiles.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND)
        guard fd >= 0 else { throw .journal("cannot create \(path): \(String(cString: strerror(errno)))") }
        if descriptor >= 0 { close(descriptor) }
        descriptor = fd
        written = 0
        lock.withLock { firsts.append(position) }
    }

    private func segmentNames() throws(StorageError) -> [String] {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".log") }.sorted()
        } catch {
            throw .journal("cannot open the journal folder \(folder): \(error.localizedDescription)")
        }
    }

    /// Zero-padded so that name order is position order.
    static func name(_ first: UInt64) -> String {
        let digits = String(first)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".log"
    }
}
