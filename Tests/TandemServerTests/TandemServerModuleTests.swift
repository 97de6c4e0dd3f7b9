import Testing
@testable import TandemServer

@Suite struct TandemServerModuleTests {
    @Test func moduleLinks() {
        #expect(String(describing: TandemServer.self) == "TandemServer")
    }
}
