import Foundation
import Synchronization
import TandemSubprocess

/// Headless Chromium pages for browser tests, driven through `scripts/browser/driver.py`
/// (Selenium from the pinned venv and Debian's `chromium` + `chromium-driver`).
///
/// Commands are sent one at a time as JSON lines; each gets one JSON reply line. Values come back
/// as JSON `Data`, decoded by the test into its own types.
public final class BrowserDriver: Sendable {
    /// Where the Debian packages put the browser and its driver.
    public static let chromium = ProcessInfo.processInfo.environment["TANDEM_CHROMIUM"] ?? "/usr/bin/chromium"
    public static let chromedriver = ProcessInfo.processInfo.environment["TANDEM_CHROMEDRIVER"] ?? "/usr/bin/chromedriver"

    /// Why browser tests cannot run here, or `nil` when they can.
    public static let missing: String? = {
        let files = FileManager.default
        guard files.isExecutableFile(atPath: chromium), files.isExecutableFile(atPath: chromedriver) else {
            return "Chromium is not installed (apt-get install chromium chromium-driver, or run scripts/test)"
        }
        if (try? InteropPython.interpreter(importing: "selenium")) == nil {
            return "the venv has no Selenium (run scripts/test once, or set TANDEM_PYTHON)"
        }
        return nil
    }()

    /// Browser tests run when the browser is there, and also when it is not but
    /// `TANDEM_REQUIRE_BROWSER` is set: then they fail with `missing` instead of being skipped.
    public static var shouldRun: Bool {
        missing == nil || ProcessInfo.processInfo.environment["TANDEM_REQUIRE_BROWSER"] != nil
    }

    /// Screenshots of browser tests land here (kept after the run, for people to look at).
    public static let artifacts = InteropPython.packageRoot.appendingPathComponent(".build/artifacts/browser").path

    private let process: ChildProcess
    private let input: FileHandle?
    private let replies = Mailbox<String>()
    private let errors = LockedText()
    private let timeout: Duration

    /// Starts the driver process; `timeout` bounds every command (a `wait` adds its own time).
    public init(timeout: Duration = .seconds(60)) async throws {
        if let missing = Self.missing { throw BrowserDriverError(message: missing) }
        self.timeout = timeout
        process = try ChildProcess(executable: try InteropPython.interpreter(importing: "selenium"),
                                   arguments: [InteropPython.packageRoot.appendingPathComponent("scripts/browser/driver.py").path],
                                   standardInput: .pipe, standardOutput: .pipe, standardError: .pipe)
        input = process.standardInput
        let replies = self.replies, errors = self.errors
        let stdout = process.standardOutput, stderr = process.standardError
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                guard let data = stdout?.availableData else { return }
                if data.isEmpty { return }
                buffer.append(data)
                while let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    replies.push(String(decoding: buffer[buffer.startIndex..<end], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...end)
                }
            }
        }
        Thread.detachNewThread {
            while true {
                guard let data = stderr?.availableData else { return }
                if data.isEmpty { return }
                errors.append(String(decoding: data, as: UTF8.self))
            }
        }
        _ = try await reply(within: .seconds(30))
    }

    /// Opens one browser per page (in parallel) at the given URLs.
    public func open(_ pages: [(name: String, url: String)]) async throws {
        _ = try await call(["cmd": "open", "pages": pages.map { ["page": $0.name, "url": $0.url] }])
    }

    /// Runs `script` (a function body; `return` gives the value) in `page`; the value as JSON.
    @discardableResult
    public func evaluate(_ page: String, _ script: String) async throws -> Data {
        try await call(["cmd": "eval", "page": page, "script": script])
    }

    /// `evaluate`, decoded.
    public func evaluate<Value: Decodable>(_ page: String, _ script: String, as type: Value.Type) async throws -> Value {
        try JSONDecoder().decode(Value.self, from: try await evaluate(page, script))
    }

    /// A real click (WebDriver) on the first element matching a CSS selector.
    public func click(_ page: String, _ selector: String) async throws {
        _ = try await call(["cmd": "click", "page": page, "selector": selector])
    }

    /// Real key presses (WebDriver) of `text` into the first element matching a CSS selector.
    public func type(_ page: String, _ selector: String, _ text: String) async throws {
        _ = try await call(["cmd": "type", "page": page, "selector": selector, "text": text])
    }

    /// Reloads `page` and returns once the new document has loaded.
    public func reload(_ page: String) async throws {
        _ = try await call(["cmd": "reload", "page": page])
    }

    /// Polls `script` in `page` until it returns a truthy value; throws with the last value otherwise.
    @discardableResult
    public func waitUntil(_ page: String, _ script: String, timeout: Duration = .seconds(30)) async throws -> Data {
        try await call(["cmd": "wait", "page": page, "script": script, "timeout": Double(timeout.components.seconds)],
                       extra: timeout)
    }

    /// Saves a PNG of `page` as `<artifacts>/<name>.png` and returns its path.
    @discardableResult
    public func screenshot(_ page: String, name: String) async throws -> String {
        let path = (Self.artifacts as NSString).appendingPathComponent("\(name).png")
        _ = try await call(["cmd": "screenshot", "page": page, "path": path])
        return path
    }

    /// Console messages of level SEVERE (script errors, CSP violations) since the last call.
    public func consoleErrors(_ page: String) async throws -> [String] {
        try JSONDecoder().decode([String].self, from: try await call(["cmd": "console", "page": page]))
    }

    /// Closes every browser and ends the driver process (bounded; killed if it hangs).
    public func quit() async {
        _ = try? await call(["cmd": "quit"])
        try? input?.close()
        let process = self.process
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(10)
                while process.isRunning, Date() < deadline { usleep(20_000) }
                if process.isRunning { process.terminate() }
                process.waitUntilExit()
                continuation.resume()
            }
        }
    }

    private func call(_ command: [String: Any], extra: Duration = .zero) async throws -> Data {
        var line = try JSONSerialization.data(withJSONObject: command)
        line.append(UInt8(ascii: "\n"))
        try input?.write(contentsOf: line)
        return try await reply(within: timeout + extra)
    }

    private func reply(within limit: Duration) async throws -> Data {
        guard let line = await replies.next(timeout: limit) else {
            throw BrowserDriverError(message: "the browser driver did not answer within \(limit); stderr: \(errors.text.suffix(2000))")
        }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw BrowserDriverError(message: "unreadable driver reply: \(line)")
        }
        guard object["ok"] as? Bool == true else {
            throw BrowserDriverError(message: "\(object["error"] ?? line)")
        }
        return try JSONSerialization.data(withJSONObject: object["value"] ?? NSNull(), options: [.fragmentsAllowed])
    }
}

/// A browser command failed, or the browser is not installed.
public struct BrowserDriverError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
