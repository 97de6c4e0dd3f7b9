/// A minimal HTTP/1.1 client over Tandem's event loops, for the JSON APIs of a Tandem server: one request per
/// connection (`Connection: close`), `Content-Length` bodies, `http://` and `https://`.
package enum HTTPClient {
    /// Sends `method` `url` with `headers` and `body`, and returns the complete response (any status).
    /// `timeout` bounds connecting and the whole exchange; bodies beyond `maxBodyBytes` fail the request.
    /// `https://` verifies the server's certificate against `tls` (nil: the system's trust store).
    package static func send(
        method: String, url: String, headers: HTTPHeaders = [:], body: [UInt8] = [], timeout: Duration = .seconds(10),
        maxBodyBytes: Int = 1 << 20, tls: TLSContext? = nil, on loop: EventLoop
    ) async throws(HTTPClientError) -> HTTPResponse {
        let target: WebSocketURL
        do {
            target = try WebSocketURL(url, scheme: "http")
        } catch {
            if case .invalidURL(let message) = error { throw .invalidURL(message) }
            throw .invalidURL(url)
        }
        let context: TLSContext?
        do throws(TLSError) {
            context = try target.tlsContext(given: tls)
        } catch {
            throw .tls(error)
        }
        var request = HTTPRequest(method: method, target: target.target, headers: headers, body: body)
        if !request.headers.contains(name: "Host") { request.headers.add(name: "Host", value: target.hostHeader) }
        request.headers.replaceOrAdd(name: "Connection", value: "close")
        if !body.isEmpty || method == "POST" || method == "PUT" {
            request.headers.replaceOrAdd(name: "Content-Length", value: "\(body.count)")
        }
        var bytes: [UInt8] = []
        request.serialize(into: &bytes)
        let waiter = ResultWaiter<HTTPResponse, HTTPClientError>()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        let requestBytes = bytes
        do {
            _ = try await TCPConnection.connect(host: target.host, port: target.port, timeout: timeout, on: loop, tls: context) { connection in
                HTTPClientExchange(connection: connection, request: requestBytes, maxBodyBytes: maxBodyBytes, waiter: waiter,
                                   timeout: max(.zero, deadline - clock.now))
            }
        } catch let error as IOError {
            if case .connectTimeout = error { throw .timeout }
            if case .tls(let failure) = error { throw .tls(failure) }
            throw .connectFailed(error.description)
        } catch {
            throw .connectFailed("\(error)")
        }
        return try await waiter.wait().get()
    }
}

/// One request/response exchange on a fresh connection: writes the request, parses the response, closes.
/// Loop-confined: every member is touched on the connection's loop thread only (hence `@unchecked Sendable`).
final class HTTPClientExchange: TCPConnectionHandler, @unchecked Sendable {
    private let waiter: ResultWaiter<HTTPResponse, HTTPClientError>
    private let maxBodyBytes: Int
    private var parser = HTTPResponseParser()
    private var timer: ScheduledTask?
    private var done = false

    init(connection: TCPConnection, request: [UInt8], maxBodyBytes: Int, waiter: ResultWaiter<HTTPResponse, HTTPClientError>, timeout: Duration) {
        self.waiter = waiter
        self.maxBodyBytes = maxBodyBytes
        connection.write(request)
        timer = connection.loop.schedule(after: timeout) { [weak self, weak connection] in
            self?.finish(.failure(.timeout), connection)
        }
    }

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        guard !done else { return }
        parser.append(bytes)
        do {
            if let response = try parser.nextResponse(maxBodyBytes: maxBodyBytes) {
                finish(.success(response), connection)
            }
        } catch {
            finish(.failure(.invalidResponse(error.description)), connection)
        }
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {
        guard !done else { return }
        do {
            if let response = try parser.endOfStream(maxBodyBytes: maxBodyBytes) {
                finish(.success(response), nil)
                return
            }
            let detail = error.map { ": \($0)" } ?? ""
            finish(.failure(.invalidResponse("the server closed the connection without a response\(detail)")), nil)
        } catch {
            finish(.failure(.invalidResponse("the response was cut short (\(error.description))")), nil)
        }
    }

    private func finish(_ result: Result<HTTPResponse, HTTPClientError>, _ connection: TCPConnection?) {
        guard !done else { return }
        done = true
        timer?.cancel()
        timer = nil
        connection?.close()
        waiter.complete(result)
    }
}
