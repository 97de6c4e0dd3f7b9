import Foundation
import TandemProtocol

/// The patch admission vectors (`Tests/Fixtures/patch-admission.json`): what a patch's ops must be
/// before any state is looked at, and the reject each case earns. Every path that admits a patch —
/// a participant's socket, the rooms API, a cluster's sequencer — runs them and must answer alike.
public struct AdmissionVectors: Sendable {
    /// One case: the ops as a participant sends them, the reject code expected (nil: accepted) and its message.
    public struct Case: Sendable {
        public var ops: JSONValue
        public var code: RejectCode?
        public var message: String?
        /// The ops as JSON text.
        public var text: String { String(decoding: ops.serializedBytes(), as: UTF8.self) }
    }

    /// The op limit the cases assume.
    public var maxOps: Int
    /// The cases, in order.
    public var cases: [Case]

    /// Reads the shared file.
    public static func load() throws -> AdmissionVectors {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/patch-admission.json")
        let root = try JSONValue.parse(String(contentsOf: file, encoding: .utf8))
        guard let maxOps = root["maxOps"]?.doubleValue, let cases = root["cases"]?.arrayValue else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return AdmissionVectors(maxOps: Int(maxOps), cases: cases.map { vector in
            Case(ops: vector["ops"] ?? .null, code: vector["code"]?.stringValue.map(RejectCode.init(wireValue:)),
                 message: vector["message"]?.stringValue)
        })
    }
}
