import Testing
@testable import TandemClient

@Suite struct TandemClientModuleTests {
    @Test func moduleLinks() {
        #expect(String(describing: TandemClient.self) == "TandemClient")
    }
}
