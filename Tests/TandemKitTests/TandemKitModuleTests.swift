import Testing
@testable import TandemKit

@Suite struct TandemKitModuleTests {
    @Test func moduleLinks() {
        #expect(String(describing: TandemKit.self) == "TandemKit")
    }
}
