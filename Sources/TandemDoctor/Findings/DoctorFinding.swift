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
        /// Two subspecs of one pod, installed together, that each vendor their own copy of one framework:
        /// alternative flavours (the architecture article's `UI_Minimalist` and `UI_Classic`).
        case alternativeSubspecs = "alternative_subspecs"
        /// One framework or resource bundle made by two different pods.
        case duplicateProduct = "duplicate_product"
        /// One library taken from both CocoaPods and SwiftPM.
        case packageInBothManagers = "package_in_both_managers"
    }

    /// What kind of mistake.
    public var kind: Kind
    /// The target it is in (nil for the whole Podfile).
    public var target: String?
    /// What is wrong, in a sentence.
    public var message: String
    /// The chains that prove it, each from a declaration to what it brings in (`A → A/Core → B`); one
    /// chain per side when two sources collide.
    public var paths: [[String]]
    /// What to change.
    public var fix: String
    /// The Podfile line at fault, when there is one.
    public var line: Int?

    /// Creates a finding.
    public init(kind: Kind, target: String?, message: String, paths: [[String]], fix: String, line: Int?) {
        self.kind = kind
        self.target = target
        self.message = message
        self.paths = paths
        self.fix = fix
        self.line = line
    }
}
