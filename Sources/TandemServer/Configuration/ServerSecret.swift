import Foundation

/// The HMAC key that signs and verifies tokens, and where it came from.
///
/// Resolution order: the `TANDEM_SECRET` environment variable, else the file `secret` in the
/// data folder, created on first start with mode 0600 (from its first instant) and 64 random hex characters
/// on one line.
/// In both cases the key is the text's UTF-8 bytes with surrounding whitespace trimmed, so any
/// JWT library can mint tokens with the same text.
public struct ServerSecret: Sendable, Equatable {
    /// Where the secret was found.
    public enum Source: Sendable, Equatable {
        /// From the `TANDEM_SECRET` environment variable.
        case environment
        /// From an existing file at this path.
        case file(String)
        /// Generated now and written to this path.
        case created(String)
    }

    /// The HMAC key bytes.
    public var key: [UInt8]
    /// Where the key came from (logged at start, never the key itself).
    public var source: Source

    /// Creates a secret from raw key text (trimmed).
    public init(text: String, source: Source) {
        key = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        self.source = source
    }

    /// Loads or creates the secret for a server whose data folder is `dataDirectory`: the variable
    /// `variable` of `environment` when set, else the file `file` there (created when missing). The
    /// defaults are the token secret's; the webhook secret is the file `webhook-secret`.
    /// - Throws: `ServerSecretError` when the file cannot be read or created, or holds no key.
    public static func load(environment: [String: String], dataDirectory: String, file: String = "secret",
                            variable: String? = "TANDEM_SECRET") throws(ServerSecretError) -> ServerSecret {
        if let variable, let text = environment[variable] {
            let secret = ServerSecret(text: text, source: .environment)
            guard !secret.key.isEmpty else { throw .empty(variable) }
            return secret
        }
        let path = (dataDirectory as NSString).appendingPathComponent(file)
        if FileManager.default.fileExists(atPath: path) {
            guard let data = FileManager.default.contents(atPath: path),
                  let text = String(data: data, encoding: .utf8)
            else { throw .unreadable(path) }
            let secret = ServerSecret(text: text, source: .file(path))
            guard !secret.key.isEmpty else { throw .empty(path) }
            return secret
        }
        do {
            // Private to the server's user: it holds the secret and every room's state.
            try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotCreate(path, "\(error.localizedDescription)")
        }
        var generator = SystemRandomNumberGenerator() // cryptographically secure on every platform
        let text = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        try create(path, holding: Array((text + "\n").utf8))
        return ServerSecret(text: text, source: .created(path))
    }

    /// Writes `bytes` to a new file at `path` that is private from its first instant (`PrivateFiles.mode`; a
    /// file that Foundation creates is 0666 less the umask until it is renamed into place and changed): written
    /// to a temporary file next to it and renamed, so a crash never leaves a partial secret.
    private static func create(_ path: String, holding bytes: [UInt8]) throws(ServerSecretError) {
        let temporary = path + ".creating"
        unlink(temporary) // what a crash left
        let descriptor = PrivateFiles.open(temporary, O_WRONLY | O_CREAT | O_EXCL)
        guard descriptor >= 0 else { throw .cannotCreate(path, String(cString: strerror(errno))) }
        var failure: String?
        var written = 0
        while failure == nil, written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                written += count
            } else if count == 0 || errno != EINTR {
                failure = String(cString: strerror(errno))
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw .cannotCreate(path, failure)
        }
    }
}

/// Why the server's secret could not be loaded.
public enum ServerSecretError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The variable or file holds only whitespace.
    case empty(String)
    /// The file exists but cannot be read as UTF-8 text.
    case unreadable(String)
    /// The data folder or the file could not be created.
    case cannotCreate(String, String)

    /// A message that says what to fix.
    public var description: String {
        switch self {
        case .empty(let place): "the secret in \(place) is empty; put a long random string there or delete the file to have one generated"
        case .unreadable(let path): "cannot read the secret file \(path); check its owner and permissions"
        case .cannotCreate(let path, let reason): "cannot create the secret file \(path): \(reason); check that the data folder is writable"
        }
    }
}
