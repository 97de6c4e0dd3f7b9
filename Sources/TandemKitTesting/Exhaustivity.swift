/// How strictly a `TestStore` checks a test.
public enum Exhaustivity: Sendable, Equatable {
    /// Every state change must be asserted in full, every action an effect sends must be
    /// received, and every effect must have finished by the end of the test.
    case on
    /// Assertions check only what they mention: an `assert` closure checks the fields it sets,
    /// `receive` skips (and applies) actions until the expected one arrives, and actions or
    /// effects left over at the end are not failures.
    case off
}
