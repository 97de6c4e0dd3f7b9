import Synchronization
import Testing
import TandemKit

private protocol Greeter: Sendable {
    func greet() -> String
}

private final class EnglishGreeter: Greeter {
    let serial: Int
    init(serial: Int) { self.serial = serial }
    func greet() -> String { "hello #\(serial)" }
}

private struct FakeGreeter: Greeter {
    func greet() -> String { "fake" }
}

private protocol Clerk: Sendable {
    var greeter: any Greeter { get }
}

private struct FrontDesk: Clerk {
    let greeter: any Greeter
}

private struct Broken: Error, CustomStringConvertible {
    var description: String { "disk full" }
}

/// Counts factory calls from any thread.
private final class BuildCounter: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
}

@Suite struct ContainerTests {
    @Test func singletonReturnsTheSameInstanceAndTransientANewOne() throws {
        let container = Container()
        let counter = BuildCounter()
        container.register((any Greeter).self) { _ in EnglishGreeter(serial: counter.next()) }
        container.register(EnglishGreeter.self, scope: .transient) { _ in EnglishGreeter(serial: counter.next()) }
        let first = try container.resolve((any Greeter).self)
        let second: any Greeter = try container.resolve()
        #expect((first as? EnglishGreeter) === (second as? EnglishGreeter))
        let a = try container.resolve(EnglishGreeter.self)
        let b = try container.resolve(EnglishGreeter.self)
        #expect(a !== b)
        #expect(counter.count == 3)
    }

    @Test func concurrentFirstResolvesOfASingletonRunTheFactoryExactlyOnce() async throws {
        let container = Container()
        let counter = BuildCounter()
        let entered = BuildCounter()
        container.register((any Greeter).self) { _ in
            // Stay inside the factory until a second caller has started resolving (bounded), so a
            // container without exactly-once construction would run this factory twice.
            let until = ContinuousClock.now.advanced(by: .milliseconds(500))
            while entered.count < 2 && ContinuousClock.now < until {}
            let settle = ContinuousClock.now.advanced(by: .milliseconds(5))
            while ContinuousClock.now < settle {}
            return EnglishGreeter(serial: counter.next())
        }
        let serials = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    _ = entered.next()
                    return try (container.resolve((any Greeter).self) as? EnglishGreeter)?.serial ?? -1
                }
            }
            var serials: Set<Int> = []
            for try await serial in group { serials.insert(serial) }
            return serials
        }
        #expect(entered.count == 200)
        #expect(counter.count == 1)
        #expect(serials == [1])
    }

    @Test func aMissingRegistrationNamesTheTypeAndWhoNeededIt() {
        let container = Container()
        #expect(throws: ContainerError.notRegistered(service: "Greeter", path: [])) {
            try container.resolve((any Greeter).self)
        }
        container.register((any Clerk).self) { resolver in FrontDesk(greeter: try resolver.resolve()) }
        do {
            _ = try container.resolve((any Clerk).self)
            Issue.record("resolved a clerk without a greeter")
        } catch {
            #expect(error == .notRegistered(service: "Greeter", path: ["Clerk"]))
            #expect(error.description.contains("no registration for Greeter (needed by Clerk); register a factory for Greeter"))
        }
        #expect(!container.isRegistered((any Greeter).self))
        #expect(container.isRegistered((any Clerk).self))
    }

    @Test func dependenciesResolveThroughTheResolver() throws {
        let container = Container()
        container.register((any Greeter).self) { _ in EnglishGreeter(serial: 7) }
        container.register((any Clerk).self, scope: .transient) { resolver in FrontDesk(greeter: try resolver.resolve()) }
        #expect(try container.resolve((any Clerk).self).greeter.greet() == "hello #7")
    }

    @Test func aCycleIsReportedNotRecursedForever() {
        let container = Container()
        container.register(Int.self) { resolver in try resolver.resolve(String.self).count }
        container.register(String.self) { resolver in String(try resolver.resolve(Int.self)) }
        #expect(throws: ContainerError.cycle(path: ["Int", "String", "Int"])) { try container.resolve(Int.self) }
    }

    @Test func aThrowingFactoryIsWrappedAndNotCached() throws {
        let container = Container()
        let counter = BuildCounter()
        container.register(Int.self) { _ in
            if counter.next() == 1 { throw Broken() }
            return 42
        }
        #expect(throws: ContainerError.factoryFailed(service: "Int", reason: "disk full")) { try container.resolve(Int.self) }
        #expect(try container.resolve(Int.self) == 42)
        #expect(try container.resolve(Int.self) == 42)
        #expect(counter.count == 2)
    }

    @Test func overridesReachDependentsWithoutTouchingTheOriginal() throws {
        let container = Container()
        container.register((any Greeter).self) { _ in EnglishGreeter(serial: 1) }
        container.register((any Clerk).self) { resolver in FrontDesk(greeter: try resolver.resolve()) }
        let original = try container.resolve((any Clerk).self)
        let test = container.overriding { $0.register((any Greeter).self) { _ in FakeGreeter() } }
        #expect(try test.resolve((any Clerk).self).greeter.greet() == "fake")
        #expect(try container.resolve((any Clerk).self).greeter.greet() == original.greeter.greet())
        #expect(try container.resolve((any Greeter).self).greet() == "hello #1")
    }

    @Test func reRegisteringReplacesTheFactoryAndTheCachedSingleton() throws {
        let container = Container()
        container.register((any Greeter).self) { _ in EnglishGreeter(serial: 1) }
        #expect(try container.resolve((any Greeter).self).greet() == "hello #1")
        container.register((any Greeter).self) { _ in FakeGreeter() }
        #expect(try container.resolve((any Greeter).self).greet() == "fake")
    }

    @Test func errorMessagesSayWhatToDo() {
        #expect(ContainerError.cycle(path: ["A", "B", "A"]).description.contains("A → B → A"))
        #expect(ContainerError.factoryFailed(service: "Db", reason: "disk full").description == "the factory for Db failed: disk full")
    }
}
