/// What a factory receives to resolve its own dependencies from the same container.
///
/// It carries the chain of services being built, so a missing dependency names who needed it
/// and a dependency cycle is reported as `ContainerError.cycle` instead of recursing forever.
public struct Resolver: Sendable {
    /// One service being built: its key for cycle checks, its name for messages.
    struct Step: Sendable {
        var key: ObjectIdentifier
        var name: String
    }

    let container: Container
    /// The services whose factories are waiting for `current`, outermost first.
    let parents: [Step]
    /// The service whose factory received this resolver.
    let current: Step

    /// Resolves `type` as `Container.resolve(_:)` does, as a dependency of the service being built.
    public func resolve<Service: Sendable>(_ type: Service.Type = Service.self) throws(ContainerError) -> Service {
        // The chain is only materialised when a factory has dependencies, keeping leaf resolves cheap.
        try container.resolve(type, path: parents + [current])
    }
}
