/// One progress event of a pipeline run: which step (index of count, name) and what happened.
public struct PipelineProgress: Sendable, Hashable, CustomStringConvertible {
    /// What happened to the step.
    public enum Phase: Sendable, Hashable {
        /// The step is about to run (after any pause).
        case started
        /// An attempt failed; attempt number `attempt` starts after waiting `after`.
        case retrying(attempt: Int, after: Duration)
        /// The run is paused before this step; it starts when the run is resumed.
        case paused
        /// The step returned its output.
        case finished
    }

    /// The zero-based index of the step.
    public let index: Int
    /// The number of steps in the pipeline.
    public let count: Int
    /// The step's name.
    public let name: String
    /// What happened.
    public let phase: Phase

    /// Creates an event.
    public init(index: Int, count: Int, name: String, phase: Phase) {
        self.index = index
        self.count = count
        self.name = name
        self.phase = phase
    }

    /// E.g. `step 2 of 3 'perform': started`.
    public var description: String {
        "step \(index + 1) of \(count) '\(name)': \(phase)"
    }
}
