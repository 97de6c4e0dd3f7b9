import Testing
@testable import TandemWire

@Suite struct TandemWireModuleTests {
    @Test func moduleLinks() {
        #expect(String(describing: TandemWire.self) == "TandemWire")
    }
}
