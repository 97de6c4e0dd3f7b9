import TandemProtocol

extension HTTPResponse {
    /// A response with a JSON body and `Content-Type: application/json`, never cached.
    package static func json(status: Int, _ body: JSONValue, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var all = headers
        all.replaceOrAdd(name: "Content-Type", value: "application/json")
        all.replaceOrAdd(name: "Cache-Control", value: "no-store")
        return HTTPResponse(status: status, headers: all, body: body.serializedBytes())
    }

    /// The error shape of Tandem's JSON endpoints: `{"error": code, "message": text}`, where `code` is a stable
    /// machine-readable word and `message` says what to do.
    package static func jsonError(status: Int, error: String, message: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        json(status: status, .object(["error": .string(error), "message": .string(message)]), headers: headers)
    }
}
