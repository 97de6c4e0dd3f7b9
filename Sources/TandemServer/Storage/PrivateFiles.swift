#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the server creates files in its data folder: readable and writable by its own user only, like the
/// folder itself (0700). The files hold the secret and every room's state; their own mode keeps them private
/// when the folder's is opened up, or they are copied or backed up elsewhere.
enum PrivateFiles {
    /// The mode of every file the server creates in its data folder (before the umask, which can only narrow it).
    static let mode: mode_t = 0o600

    /// `open(2)` of `path` with `flags` and close-on-exec; a file `O_CREAT` creates gets `mode`. Returns the
    /// descriptor, or -1 with `errno` set.
    static func open(_ path: String, _ flags: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.open(path, flags | O_CLOEXEC, mode)
        #else
        Darwin.open(path, flags | O_CLOEXEC, mode)
        #endif
    }

    /// Creates the SQLite database file at `path`, empty, with `mode` when it does not exist yet. SQLite itself
    /// would create it 0644 (less the umask); an empty file is an empty database to it, and the files it creates
    /// next to it (`-wal`, `-shm`, `-journal`) take the database file's mode. A failure is left for SQLite's open
    /// to report; `:memory:` and `""` (a temporary database) have no file.
    static func prepareDatabase(at path: String) {
        guard !path.isEmpty, path != ":memory:" else { return }
        let descriptor = open(path, O_RDONLY | O_CREAT)
        if descriptor >= 0 { close(descriptor) }
    }
}
