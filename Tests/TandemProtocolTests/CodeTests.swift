import Testing
import TandemProtocol

@Suite struct CodeTests {
    @Test func closeCodesHaveTheSpecifiedNumbers() {
        #expect(CloseCode.allDefined.map(\.rawValue) == [1000, 1001, 1002, 1007, 1008, 1009, 1011, 4000, 4001, 4002, 4003, 4004, 4008, 4009, 4010, 4013, 4029])
        #expect(Set(CloseCode.allDefined.map(\.reason)).count == CloseCode.allDefined.count)
        #expect(CloseCode(rawValue: 4029) == .rateLimited)
        #expect(CloseCode.rateLimited.description == "4029 (rate limited)")
        #expect(CloseCode(rawValue: 4999).reason == "close code 4999")
    }

    @Test func clientsResumeAfterEveryCodeExceptTokensForbiddenAndReplaced() {
        for code in CloseCode.allDefined {
            switch code {
            case .badToken, .tokenExpired:
                #expect(code.reconnectPolicy == .resumeWithFreshToken)
                #expect(code.allowsReconnect)
            case .forbidden, .roomDeleted, .replaced:
                #expect(code.reconnectPolicy == .stop)
                #expect(!code.allowsReconnect)
            default:
                #expect(code.reconnectPolicy == .resume, "\(code)")
            }
        }
        #expect(CloseCode(rawValue: 1006).reconnectPolicy == .resume)
    }

    @Test func rejectCodesUseTheWireStrings() {
        let codes: [RejectCode] = [.forbidden, .invalidPath, .invalidOp, .tooManyOps, .tooLarge]
        #expect(codes.map(\.wireValue) == ["forbidden", "invalid_path", "invalid_op", "too_many_ops", "too_large"])
        for code in codes { #expect(RejectCode(wireValue: code.wireValue) == code) }
        #expect(RejectCode(wireValue: "new_code") == .other("new_code"))
        #expect(RejectCode.other("new_code").wireValue == "new_code")
    }

    @Test func errorCodesRoundTripAndNameTheirCloseCode() {
        #expect(Set(ErrorCode.allDefined.map(\.wireValue)).count == ErrorCode.allDefined.count)
        for code in ErrorCode.allDefined { #expect(ErrorCode(wireValue: code.wireValue) == code) }
        #expect(ErrorCode(wireValue: "mystery") == .other("mystery"))
        #expect(ErrorCode.badJSON.wireValue == "bad_json")
        #expect(ErrorCode.badJSON.closeCode == nil)
        #expect(ErrorCode.unknownType.closeCode == nil)
        #expect(ErrorCode.helloRequired.closeCode == .policyViolation)
        #expect(ErrorCode.unauthorized.closeCode == .badToken)
        #expect(ErrorCode.rateLimited.closeCode == .rateLimited)
        #expect(ErrorCode.messageTooLarge.closeCode == .messageTooBig)
        #expect(ErrorCode.shuttingDown.closeCode == .goingAway)
    }

    @Test func patchErrorsMapToRejectCodes() {
        #expect(PatchError.invalidPath(op: 0, path: "/a", reason: "r").code == .invalidPath)
        #expect(PatchError.invalidOp(op: 2, reason: "r").code == .invalidOp)
        #expect(PatchError.tooManyOps(count: 2, limit: 1).code == .tooManyOps)
        #expect(PatchError.tooLarge(size: 2, limit: 1).code == .tooLarge)
        #expect(PatchError.forbidden(reason: "viewer").code == .forbidden)
        #expect(PatchError.invalidOp(op: 2, reason: "bad").description == "op 2: bad")
    }

    @Test func rolesKnowWhoMayPatch() {
        #expect(Role.allCases.filter(\.canPatch) == [.host, .guest])
        #expect(Role(rawValue: "viewer") == .viewer)
        #expect(Role(rawValue: "admin") == nil)
    }
}
