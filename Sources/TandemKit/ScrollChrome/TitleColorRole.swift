/// Which colour the navigation bar's title and buttons take: a semantic role the front end maps
/// to its palette, so the pure state carries no UIKit or SwiftUI colour type.
public enum TitleColorRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// Light content drawn over the header image while the bar is still mostly transparent.
    case inverted
    /// The bar's regular title colour, once its background is mostly opaque.
    case primary
}
