import Foundation
import TandemSynchronization

/// A dependency container: services are registered by (usually protocol) type with a factory and
/// a scope, and resolved by type.
///
/// Thread-safe: registration and resolution may happen from any thread. A singleton's factory runs
/// exactly once even when many tasks resolve it concurrently for the first time (singleton
/// construction is serialised per container; nested resolves from inside factories are allowed).
/// No instance is global: each app, feature or test owns its container. Because singleton
/// construction is serialised, a factory must not wait for another thread that resolves from the
/// same container (resolve dependencies through the `Resolver` it is given instead).
public final class Container: Sendable {
    private struct Registration: Sendable {
        var name: String
        var scope: ServiceScope
        var factory: @Sendable (Resolver) throws -> any AnyObject & Sendable
        /// The built singleton (a `ServiceBox`), once there is one.
        var instance: (any AnyObject & Sendable)?
    }

    /// Wraps an instance in a class of its own registered type, so handing it out is a cheap
    /// class cast rather than a protocol-conformance lookup on every resolve.
    private final class ServiceBox<Service: Sendable>: Sendable {
        let value: Service
        init(_ value: Service) { self.value = value }
    }

    private let registrations: Locked<[ObjectIdentifier: Registration]>
    /// Held while a singleton is being built, so its factory runs once; recursive because a
    /// factory resolves its own singleton dependencies on the same thread.
    private let buildLock = NSRecursiveLock()

    /// Creates an empty container.
    public convenience init() {
        self.init(registrations: [:])
    }

    private init(registrations: [ObjectIdentifier: Registration]) {
        self.registrations = Locked(registrations)
    }

    /// Registers `factory` as the way to build `type`, replacing any earlier registration of that
    /// type (and dropping its cached singleton).
    ///
    /// Register protocols as their existential, e.g. `register((any ChatService).self) { … }`.
    public func register<Service: Sendable>(
        _ type: Service.Type,
        scope: ServiceScope = .singleton,
        factory: @escaping @Sendable (Resolver) throws -> Service
    ) {
        // The name is computed once here: describing a type is far slower than a resolve.
        let registration = Registration(name: String(describing: type), scope: scope, factory: { ServiceBox(try factory($0)) })
        registrations.withLock { $0[ObjectIdentifier(type)] = registration }
    }

    /// Whether `type` has a registration.
    public func isRegistered<Service>(_ type: Service.Type) -> Bool {
        registrations.withLock { $0[ObjectIdentifier(type)] != nil }
    }

    /// Returns the service registered for `type`: the cached instance for a singleton (built on
    /// first use), a fresh one for a transient registration.
    ///
    /// - Throws: `ContainerError.notRegistered` naming the type (and who needed it),
    ///   `.cycle` for circular dependencies, `.factoryFailed` when a factory throws.
    public func resolve<Service: Sendable>(_ type: Service.Type = Service.self) throws(ContainerError) -> Service {
        try resolve(type, path: [])
    }

    /// A new container that starts with this container's registrations (but none of its built
    /// singletons) and then applies `overrides`.
    ///
    /// This container is not changed. Because every singleton is rebuilt in the new container, an
    /// override also reaches the services that depend on it: ideal for tests that replace one
    /// adapter with a fake.
    public func overriding(_ overrides: (Container) -> Void) -> Container {
        let child = Container(registrations: registrations.withLock { $0.mapValues { Registration(name: $0.name, scope: $0.scope, factory: $0.factory) } })
        overrides(child)
        return child
    }

    func resolve<Service: Sendable>(_ type: Service.Type, path: [Resolver.Step]) throws(ContainerError) -> Service {
        let key = ObjectIdentifier(type)
        guard let registration = registrations.withLock({ $0[key] }) else {
            throw .notRegistered(service: String(describing: type), path: path.map(\.name))
        }
        if let instance = registration.instance { return try Self.cast(instance, to: type, name: registration.name) }
        if path.contains(where: { $0.key == key }) {
            throw .cycle(path: path.map(\.name) + [registration.name])
        }
        let resolver = Resolver(container: self, parents: path, current: Resolver.Step(key: key, name: registration.name))
        switch registration.scope {
        case .transient:
            return try Self.cast(try Self.build(registration, resolver: resolver), to: type, name: registration.name)
        case .singleton:
            buildLock.lock()
            defer { buildLock.unlock() }
            // Another thread may have built it while this one waited for the lock; a
            // re-registration meanwhile means the newer factory wins.
            guard let current = registrations.withLock({ $0[key] }) else {
                throw .notRegistered(service: registration.name, path: path.map(\.name))
            }
            if let instance = current.instance { return try Self.cast(instance, to: type, name: current.name) }
            let instance = try Self.build(current, resolver: resolver)
            registrations.withLock { $0[key]?.instance = instance }
            return try Self.cast(instance, to: type, name: current.name)
        }
    }

    private static func build(_ registration: Registration, resolver: Resolver) throws(ContainerError) -> any AnyObject & Sendable {
        do {
            return try registration.factory(resolver)
        } catch let error as ContainerError {
            throw error
        } catch {
            throw .factoryFailed(service: registration.name, reason: String(describing: error))
        }
    }

    private static func cast<Service: Sendable>(_ instance: any AnyObject & Sendable, to type: Service.Type, name: String) throws(ContainerError) -> Service {
        // Registrations are keyed by the exact type their box holds, so this cannot fail; the
        // check keeps a future bug from turning into a crash.
        guard let box = instance as? ServiceBox<Service> else {
            throw .factoryFailed(service: name, reason: "the registration holds \(Swift.type(of: instance))")
        }
        return box.value
    }
}
