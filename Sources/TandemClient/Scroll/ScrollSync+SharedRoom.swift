extension ScrollSync {
    /// A controller that shares the offset at `offset` in `room`'s state and declares it high-rate, so it
    /// is paced newest-wins whatever the state calls it (`/contentOffset` needs no declaration; any other
    /// name does, or every scroll frame becomes a patch).
    @MainActor
    public convenience init<State: Codable & Equatable & Sendable, Presence: Codable & Equatable & Sendable>(
        room: SharedRoom<State, Presence>, offset: WritableKeyPath<State, ContentOffset>, activeTab: Tab? = nil) {
        room.declareHighRate(offset)
        self.init(activeTab: activeTab) { value in room.update { $0[keyPath: offset] = value } }
    }
}
