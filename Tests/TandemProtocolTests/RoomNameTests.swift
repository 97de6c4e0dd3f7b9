import Testing
@testable import TandemProtocol

/// Room names are compared byte for byte everywhere; only names whose bytes are their one canonical spelling are taken.
@Suite struct RoomNameTests {
    @Test func acceptsNamesInNFC() throws {
        for name in ["lobby", "caf\u{E9}", "\u{3A9}", "\u{C5}ngstr\u{F6}m", "한국어", "room/with spaces", String(repeating: "x", count: RoomName.maxBytes)] {
            try RoomName.check(name)
        }
    }

    @Test(arguments: ["\u{2126}", "cafe\u{301}", "\u{212B}", "A\u{30A}", "\u{1100}\u{1161}"])
    func refusesNamesOutsideNFC(name: String) {
        #expect(throws: RoomNameError.notNFC) { try RoomName.check(name) }
    }

    @Test func refusesEmptyWildcardLongAndControlNames() {
        #expect(throws: RoomNameError.empty) { try RoomName.check("") }
        #expect(throws: RoomNameError.wildcard) { try RoomName.check("*") }
        #expect(throws: RoomNameError.tooLong(bytes: RoomName.maxBytes + 1)) { try RoomName.check(String(repeating: "x", count: RoomName.maxBytes + 1)) }
        for (name, scalar) in [("a\rb", 0x0D), ("a\nb", 0x0A), ("a\r\nb", 0x0D), ("\u{1B}[31m", 0x1B), ("a\u{7F}", 0x7F), ("a\u{85}", 0x85), ("a\u{2028}", 0x2028), ("\u{0}", 0)] {
            #expect(throws: RoomNameError.controlCharacter(UInt32(scalar)), "\(name.unicodeScalars.map(\.value))") { try RoomName.check(name) }
        }
    }

    @Test func aTokenNamingARoomOutsideNFCIsRefused() throws {
        let signer: ([UInt8]) -> [UInt8] = { Array($0.prefix(32)) }
        for room in ["cafe\u{301}", "\u{2126}", "a\nb"] {
            let token = JWT.sign(TokenClaims(sub: "a", room: room, role: .host, exp: 5_000), signer: signer)
            #expect(throws: TokenError.self) { try JWT.verify(token, now: 1_000, signer: signer) }
        }
        let backend = JWT.sign(TokenClaims(sub: "a", room: TokenClaims.anyRoom, role: .host, exp: 5_000), signer: signer)
        #expect(try JWT.verify(backend, now: 1_000, signer: signer).isBackend)
    }
}
