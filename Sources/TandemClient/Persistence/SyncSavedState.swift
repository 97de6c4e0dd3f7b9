import TandemProtocol

/// What a session keeps across launches: who it is, where it is in the room's history, the confirmed
/// state, and the local changes the server has not confirmed. Restoring it gives the app its last
/// visible state at once and lets the session resume where it stopped, resending each pending patch
/// with its seq (so the server applies it exactly once).
///
/// `Codable` for apps that store it their own way; `FileSyncPersistence` writes it as JSON.
public struct SyncSavedState: Codable, Sendable, Equatable {
    /// The format of this value; a store refuses a saved state of a format it does not know.
    public static let currentFormat = 1

    /// The format number (`currentFormat` when written by this version).
    public var format: Int
    /// The client id the pending seqs belong to.
    public var clientID: String
    /// The seq the next newly sent patch gets.
    public var nextSeq: Int64
    /// The room's epoch, nil before the first `welcome`.
    public var epoch: String?
    /// The rev of `confirmed`.
    public var rev: Int64
    /// The server's document as of `rev`.
    public var confirmed: JSONValue
    /// Local patches not confirmed yet, oldest first.
    public var pending: [PendingPatch]
    /// Whether the engine had lost track of the history (the next connection asks for a snapshot).
    public var needsSnapshot: Bool

    /// Creates a saved state of the current format.
    public init(clientID: String, nextSeq: Int64, epoch: String?, rev: Int64, confirmed: JSONValue, pending: [PendingPatch],
                needsSnapshot: Bool = false) {
        format = Self.currentFormat
        self.clientID = clientID
        self.nextSeq = nextSeq
        self.epoch = epoch
        self.rev = rev
        self.confirmed = confirmed
        self.pending = pending
        self.needsSnapshot = needsSnapshot
    }
}
