import Synchronization

/// The shop's backend as the page calls it: the cart API refuses the first request (a flaky network),
/// the order API uploads a photo and posts the order.
final class Shop: Sendable {
    private let cartCalls = Mutex(0)

    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "the cart service did not answer" }
    }

    /// Adds the product to the cart; the first call fails.
    func addToCart() async throws {
        try await Task.sleep(for: .milliseconds(20))
        let call = cartCalls.withLock { $0 += 1; return $0 }
        if call == 1 { throw Unavailable() }
    }

    /// Uploads the order's photo and returns its id.
    func uploadPhoto() async throws -> String {
        try await Task.sleep(for: .milliseconds(30))
        return "photo-7"
    }

    /// Posts the order text and returns the order number.
    func postOrder() async throws -> Int {
        try await Task.sleep(for: .milliseconds(20))
        return 1042
    }
}
