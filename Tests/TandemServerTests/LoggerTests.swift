import Synchronization
import Testing
@testable import TandemServer

final class RecordingLogSink: LogSink {
    private let records = Mutex<[LogRecord]>([])
    func write(_ record: LogRecord) { records.withLock { $0.append(record) } }
    var all: [LogRecord] { records.withLock { $0 } }
}

/// Keeps the bytes `StandardErrorLogSink` would write for each record.
final class LineRecordingLogSink: LogSink {
    private let lines = Mutex<[[UInt8]]>([])
    func write(_ record: LogRecord) { lines.withLock { $0.append(StandardErrorLogSink.line(record)) } }
    var all: [[UInt8]] { lines.withLock { $0 } }
}

/// Whether `bytes` (UTF-8) hold one line: a newline at the end and nowhere else, and no other C0 control,
/// DEL, C1 control (UTF-8 C2 80–C2 9F) or U+2028/U+2029 (E2 80 A8/A9) raw.
func isOneCleanLine(_ bytes: [UInt8]) -> Bool {
    guard bytes.last == 0x0A else { return false }
    let body = bytes.dropLast()
    if body.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return false }
    for (index, byte) in zip(body.indices, body) {
        let next = body.index(after: index)
        if byte == 0xC2, next < body.endIndex, (0x80...0x9F).contains(body[next]) { return false }
        if byte == 0xE2, body[next...].starts(with: [0x80, 0xA8]) || body[next...].starts(with: [0x80, 0xA9]) { return false }
    }
    return true
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

    /// One case per class of character that could end a line, start a forged one or drive a terminal: the
    /// value as a client sends it, and as the line shows it.
    @Test(arguments: [
        ("CR", "a\rb", #""a\rb""#),
        ("LF", "a\nb", #""a\nb""#),
        ("CRLF", "X\r\nlevel=error event=forged", #""X\r\nlevel=error event=forged""#),
        ("tab", "a\tb", #""a\tb""#),
        ("ESC", "\u{1B}[2J\u{1B}[31mred\u{1B}[0m", #""\u001B[2J\u001B[31mred\u001B[0m""#),
        ("NUL", "a\u{0}b", #""a\u0000b""#),
        ("BEL", "a\u{7}b", #""a\u0007b""#),
        ("DEL", "a\u{7F}b", #""a\u007Fb""#),
        ("NEL", "a\u{85}b", #""a\u0085b""#),
        ("CSI", "\u{9B}31m", #""\u009B31m""#),
        ("LS", "a\u{2028}b", #""a\u2028b""#),
        ("PS", "a\u{2029}b", #""a\u2029b""#),
    ])
    func controlCharactersInAValueAreEscapedOnOneLine(kind: String, value: String, written: String) {
        let record = LogRecord(level: .info, event: "test", fields: [LogField("value", value)])
        let line = StandardErrorLogSink.line(record)
        #expect(isOneCleanLine(line), "\(kind): \(line)")
        #expect(String(decoding: line, as: UTF8.self) == "level=info event=test value=\(written)\n", "\(kind)")
    }

    @Test func theEventAndFieldNamesCannotBreakTheLineEither() {
        let record = LogRecord(level: .warning, event: "a\r\nlevel=error", fields: [LogField("k\r\ney=x \"q\"\u{1B}", "v")])
        let line = StandardErrorLogSink.line(record)
        #expect(isOneCleanLine(line))
        #expect(String(decoding: line, as: UTF8.self) == #"level=warning event="a\r\nlevel=error" k__ey_x__q__=v"# + "\n")
    }

    @Test func metricLabelsEscapeALineFeedInsideCRLF() {
        #expect("a\r\nb\"\\".escapedForPrometheusLabel == "a\r\\nb\\\"\\\\")
    }
}
