/// Why saved session state could not be opened, read or written.
public enum SyncPersistenceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The folder is in use by another session (this process or another one).
    case locked(folder: String)
    /// The saved state was written by a newer (or unknown) format; it is left untouched.
    case unsupportedFormat(found: Int, folder: String)
    /// The saved state cannot be read (damaged, or not Tandem's).
    case unreadable(path: String, reason: String)
    /// A file operation failed.
    case io(operation: String, path: String, errno: Int32)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .locked(let folder):
            "\(folder) is used by another session (this process or another one); give each session its own folder"
        case .unsupportedFormat(let found, let folder):
            "\(folder) holds session state of format \(found), which this version does not know (it reads \(SyncSavedState.currentFormat)); "
                + "it was left as it is: open it with the version that wrote it, or remove it to start over"
        case .unreadable(let path, let reason): "cannot read the saved session state \(path): \(reason); remove it to start over"
        case .io(let operation, let path, let code): "cannot \(operation) \(path) (errno \(code))"
        }
    }
}
