import Foundation
import Synchronization

/// A dependency container: services are registered by (usually protocol) type with a factory and
/// a scope, and resolved by type.
///
/// Thread-safe: registration and resolution may happen from any thread. A singleton's factory runs
/// exactly once even when many tasks resolve it concurrently for the first time (singleton
/// construction is serialised per container; nested resolves from inside factories are allowed).
/// No instance is global: each app, feature or test owns its container.
public final class Container: Sendable {
    private struct Registration: Sendable {
        var scope: ServiceScope
        var factory: @Sendable (Resolver) throws -> any Sendable
    }

    private struct State {
        var registrations: [ObjectIdentifier: Registration] = [:]
        var singletons: [ObjectIdentifier: any Sendable] = [:]
    }

    private let state: Mutex<State>
    /// Held while a singleton is being built, so its factory runs once; recursive because a
    /// factory resolves its own singleton dependencies on the same thread.
    private let buildLock = NSRecursiveLock()

    /// Creates an empty container.
    public convenience init() {
        self.init(registrations: [:])
    }

    private init(registrations: [ObjectIdentifier: Registration]) {
        state = Mutex(State(registrations: registrations))
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
        let key = ObjectIdentifier(type)
        let registration = Registration(scope: scope, factory: { try factory($0) })
        state.withLock {
            $0.registrations[key] = registration
            $0.singletons[key] = nil
        }
    }

    /// Whether `type` has a registration.
    public func isRegistered<Service>(_ type: Service.Type) -> Bool {
        state.withLock { $0.registrations[ObjectIdentifier(type)] != nil }
    }

    /// Returns the service registered for `type`: the cached instance for a singleton (built on
    /// first use), a fresh one for a transient registration.
    ///
    /// - Throws: `ContainerError.notRegistered` naming the type (and who needed it),
    ///   `.cycle` for circular dependencies, `.factoryFailed` when a factory throws.
    public func resolve<Service>(_ type: Service.Type = Service.self) throws(ContainerError) -> Service {
        try resolve(type, path: [])
    }

    /// A new container that starts with this container's registrations (but none of its built
    /// singletons) and then applies `overrides`.
    ///
    /// This container is not changed. Because every singleton is rebuilt in the new container, an
    /// override also reaches the services that depend on it: ideal for tests that replace one
    /// adapter with a fake.
    public func overriding(_ overrides: (Container) -> Void) -> Container {
        let child = Container(registrations: state.withLock { $0.registrations })
        overrides(child)
        return child
    }

    func resolve<Service>(_ type: Service.Type, path: [String]) throws(ContainerError) -> Service {
        let key = ObjectIdentifier(type)
        let name = String(describing: type)
        if path.contains(name) { throw .cycle(path: path + [name]) }
        let (registration, cached) = state.withLock { ($0.registrations[key], $0.singletons[key]) }
        guard let registration else { throw .notRegistered(service: name, path: path) }
        if let cached { return try Self.cast(cached, to: type, name: name) }
        let resolver = Resolver(container: self, path: path + [name])
        switch registration.scope {
        case .transient:
            return try Self.cast(try Self.build(registration, name: name, resolver: resolver), to: type, name: name)
        case .singleton:
            buildLock.lock()
            defer { buildLock.unlock() }
            // Another thread may have built it while this one waited for the lock; a
            // re-registration meanwhile means the newer factory wins.
            let (current, built) = state.withLock { ($0.registrations[key], $0.singletons[key]) }
            if let built { return try Self.cast(built, to: type, name: name) }
            guard let current else { throw .notRegistered(service: name, path: path) }
            let instance = try Self.build(current, name: name, resolver: resolver)
            state.withLock { $0.singletons[key] = instance }
            return try Self.cast(instance, to: type, name: name)
        }
    }

    private static func build(_ registration: Registration, name: String, resolver: Resolver) throws(ContainerError) -> any Sendable {
        do {
            return try registration.factory(resolver)
        } catch let error as ContainerError {
            throw error
        } catch {
            throw .factoryFailed(service: name, reason: String(describing: error))
        }
    }

    private static func cast<Service>(_ instance: any Sendable, to type: Service.Type, name: String) throws(ContainerError) -> Service {
        // Registrations are keyed by the exact type the factory returns, so this cannot fail; the
        // check keeps a future bug from turning into a crash.
        guard let service = instance as? Service else {
            throw .factoryFailed(service: name, reason: "the factory returned \(Swift.type(of: instance))")
        }
        return service
    }
}
