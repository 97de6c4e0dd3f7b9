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
}
