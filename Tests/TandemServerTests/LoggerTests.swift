import Synchronization
import Testing
@testable import TandemServer

final class RecordingLogSink: LogSink {
    private let records = Mutex<[LogRecord]>([])
    func write(_ record: LogRecord) { records.withLock { $0.append(record) } }
    var all: [LogRecord] { records.withLock { $0 } }
}

@Suite struct LoggerTests {
    let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl"

    @Test func dropsRecordsBelowTheLevel() {
        let sink = RecordingLogSink()
        let logger = Logger(sink: sink, level: .warning)
        logger.info("ignored")
        logger.warning("kept", LogField("room", "lobby"))
        logger.log(.error, "also.kept")
        #expect(sink.all.map(\.event) == ["kept", "also.kept"])
        #expect(sink.all.first?.fields == [LogField("room", "lobby")])
    }

    @Test func redactsTokensWhereverTheyAppear() {
        let sink = RecordingLogSink()
        let logger = Logger(sink: sink, level: .debug)
        logger.info("request", LogField("path", "/v1/sync?token=\(token)"), LogField("header", "Bearer \(token)"))
        let values = sink.all[0].fields.map(\.value)
        #expect(values == ["/v1/sync?token=[redacted]", "Bearer [redacted]"])
        #expect(!values.joined().contains("eyJ"))
    }

    @Test func leavesOrdinaryTextAlone() {
        #expect(Logger.redactingTokens("room eyJ-not-a-token and 1.2.3") == "room eyJ-not-a-token and 1.2.3")
    }

    @Test func lineFormatQuotesValuesThatNeedIt() {
        let line = StandardErrorLogSink.format(LogRecord(level: .info, event: "connection.closed", fields: [
            LogField("room", "lobby"), LogField("reason", "slow consumer"), LogField("note", "a=\"b\""), LogField("empty", ""),
        ]))
        #expect(line == #"level=info event=connection.closed room=lobby reason="slow consumer" note="a=\"b\"" empty="""#)
    }
}
