import Testing
import TandemKit

private enum PaymentError: Error, Equatable {
    case declined
    case network(reason: String)
    case unknown(code: Int, message: String)
}

@Suite struct ServicesErrorTableTests {
    private let table = ErrorTable<PaymentError>([
        .code(51, .declined),
        .codes(1000...1999) { .network(reason: $0.message) },
        .code(1500, .declined),
    ], otherwise: { .unknown(code: $0.code, message: $0.message) })

    @Test func firstMatchingRuleWinsAndUnlistedCodesFallBack() {
        #expect(table.map(code: 51, description: "insufficient funds") == .declined)
        #expect(table.map(code: 1001, description: "timeout") == .network(reason: "timeout"))
        #expect(table.map(code: 1500, description: "x") == .network(reason: "x"))
        #expect(table.map(code: 2000, description: nil) == .unknown(code: 2000, message: ""))
        #expect(table.map(SDKFailure(code: -1, message: "odd")) == .unknown(code: -1, message: "odd"))
    }

    @Test func overlapsNameTheShadowedRule() {
        #expect(table.overlaps == [ErrorTable<PaymentError>.Overlap(winner: 1, shadowed: 2, codes: 1500...1500)])
        let clean = ErrorTable<PaymentError>([.code(1, .declined), .codes(2...9) { _ in .declined }], otherwise: { _ in .declined })
        #expect(clean.overlaps.isEmpty)
    }

    @Test func sdkFailureDescribesItself() {
        #expect(SDKFailure(code: 6014, message: "not logged in").description == "SDK error 6014: not logged in")
        #expect(SDKFailure(code: 7, message: nil).description == "SDK error 7")
    }
}
