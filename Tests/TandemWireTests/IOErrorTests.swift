#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import TandemWire

@Suite struct IOErrorTests {
    @Test func systemErrorNamesTheCallTheReasonAndTheNumber() {
        let error = IOError.system(operation: "connect to 127.0.0.1:9", errno: ECONNREFUSED)
        #expect(error.description == "connect to 127.0.0.1:9 failed: Connection refused (errno \(ECONNREFUSED))")
        #expect(error.errno == ECONNREFUSED)
        #expect(!error.isConnectionReset)
    }

    @Test func resetsAreRecognised() {
        #expect(IOError.system(operation: "read", errno: ECONNRESET).isConnectionReset)
        #expect(IOError.system(operation: "write", errno: EPIPE).isConnectionReset)
        #expect(!IOError.closeTimeout.isConnectionReset)
        #expect(IOError.eventLoopShutdown.errno == nil)
    }

    @Test func everyCaseHasAnActionableMessage() {
        let cases: [IOError] = [
            .unresolvableHost(host: "x", message: "no address"), .invalidPort(70000),
            .connectTimeout(host: "::1", port: 5), .writeQueueOverflow(limit: 10), .closeTimeout, .eventLoopShutdown,
        ]
        for error in cases { #expect(error.description.count > 15) }
        #expect(IOError.writeQueueOverflow(limit: 10).description.contains("10 bytes"))
    }
}
