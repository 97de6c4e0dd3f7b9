import TandemProtocol

/// Input `tandem doctor` does not understand, named by file and line so it can be fixed or reported.
/// The readers never guess: a construct outside the subset they know is this error, not a silent skip.
public struct DoctorInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file read (`Podfile`, `Podfile.lock`, `Package.resolved`).
    public var file: String
    /// The 1-based line.
    public var line: Int
    /// What is wrong there, and what the reader expected.
    public var reason: String

    /// Creates an error.
    public init(file: String, line: Int, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// `Podfile:12: reason`.
    public var description: String { "\(file):\(line): \(reason)" }

    /// Parses `text` as JSON, or throws this error at the line of the first invalid byte of `file`.
    static func parseJSON(_ text: String, file: String) throws(DoctorInputError) -> JSONValue {
        do {
            return try JSONValue.parse(text)
        } catch {
            throw DoctorInputError(file: file, line: line(ofByte: error.offset, in: text), reason: "\(error)")
        }
    }

    /// The 1-based line of a byte offset in `text`.
    static func line(ofByte offset: Int, in text: String) -> Int {
        1 + text.utf8.prefix(offset).reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }
}
