/// What a factory receives to resolve its own dependencies from the same container.
///
/// It carries the chain of services being built, so a missing dependency names who needed it
/// and a dependency cycle is reported as `ContainerError.cycle` instead of recursing forever.
public struct Resolver: Sendable {
    let container: Container
    let path: [String]

    /// Resolves `type` as `Container.resolve(_:)` does, as a dependency of the service being built.
    public func resolve<Service>(_ type: Service.Type = Service.self) throws(ContainerError) -> Service {
        try container.resolve(type, path: path)
    }
}
