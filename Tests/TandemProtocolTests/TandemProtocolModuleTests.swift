import Testing
@testable import TandemProtocol

@Suite struct TandemProtocolModuleTests {
    @Test func moduleLinks() {
        #expect(String(describing: TandemProtocol.self) == "TandemProtocol")
    }
}
