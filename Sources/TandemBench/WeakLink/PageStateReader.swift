import TandemProtocol
import TandemWire

/// The follower's end of the naive relay and of the bare links: reads each page state's offset.
final class PageStateReader: WebSocketHandler {
    private let view: FollowerView
    init(view: FollowerView) { self.view = view }

    /// The article's message: the whole page state, with the offset in it.
    static func pageState(y: Double) -> [UInt8] {
        Array(#"{"tabIndex":1,"contentOffset":{"x":0,"y":\#(y)},"addToCartSelected":false,"marks":{"intro_shown":true}}"#.utf8)
    }

    func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8]) {
        guard case .number(let y)? = (try? JSONValue.parse(String(decoding: text, as: UTF8.self)))?["contentOffset"]?["y"] else { return }
        view.receive(y)
    }

    func webSocketDidReceiveBinary(_ connection: WebSocketConnection, _ bytes: [UInt8]) {}
    func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool) {}
}
