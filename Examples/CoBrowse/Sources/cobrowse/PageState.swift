import TandemClient

/// The product page both people see, as the co-browsing article shares it.
struct PageState: Codable, Equatable, Sendable {
    var tabIndex = 0
    var contentOffset = ContentOffset.zero
    var addToCartSelected = false
    var marks: [String: Bool] = [:]
}

/// What each participant shows the others.
struct Viewer: Codable, Equatable, Sendable {
    var name: String
}
