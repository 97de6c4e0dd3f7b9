import TandemClient

/// The article's product page as the demo's participants share it, typed: `SharedState` turns each
/// scripted mutation into the minimal patch ops, as an app's model does. `journal` holds one entry per
/// scripted change (`journal[participant][step]`), which the verdict looks up to find lost updates.
struct DemoPage: Codable, Equatable, Sendable {
    var tabIndex = 0
    var contentOffset = ContentOffset.zero
    var addToCartSelected = false
    var marks: [String: Bool] = [:]
    var journal: [String: [String: Int]] = [:]
}
