/// One mistake `tandem doctor` found, with the chain of dependencies that proves it and the fix.
public struct DoctorFinding: Sendable, Equatable {
    /// What kind of mistake.
    public enum Kind: String, Sendable, Equatable {
        /// A pod declared directly that another declared pod already brings in.
        case redundantDeclaration = "redundant_declaration"
        /// A pod the Podfile declares that the lock does not hold (`pod install` was not run since).
        case notLocked = "not_locked"
        /// A pod the lock records as declared that the Podfile no longer declares.
        case noLongerDeclared = "no_longer_declared"
        /// A declared version requirement the version in the lock does not satisfy.
        case unsatisfiedRequirement = "unsatisfied_requirement"
    }

    /// What kind of mistake.
    public var kind: Kind
    /// The target it is in (nil for the whole Podfile).
    public var target: String?
    /// What is wrong, in a sentence.
    public var message: String
    /// The chain that proves it, from the declaration to what it brings in (`A → A/Core → B`).
    public var path: [String]
    /// What to change.
    public var fix: String
    /// The Podfile line at fault, when there is one.
    public var line: Int?

    /// Creates a finding.
    public init(kind: Kind, target: String?, message: String, path: [String], fix: String, line: Int?) {
        self.kind = kind
        self.target = target
        self.message = message
        self.path = path
        self.fix = fix
        self.line = line
    }
}
