#if canImport(UIKit)
import TandemKit
import UIKit

extension UINavigationBar {
    /// Draws `state` (from `ScrollChromeConfiguration.next(offset:previous:)`): the background at its
    /// alpha, the title and buttons in the colour of its role, the shadow only when it casts one.
    public func apply(_ state: NavigationBarState, background: UIColor, primaryTitle: UIColor, invertedTitle: UIColor) {
        let appearance = UINavigationBarAppearance()
        appearance.configureWithTransparentBackground()
        appearance.backgroundColor = background.withAlphaComponent(CGFloat(state.backgroundAlpha))
        let title = state.titleColor == .primary ? primaryTitle : invertedTitle
        appearance.titleTextAttributes = [.foregroundColor: title]
        appearance.shadowColor = state.castsShadow ? UIColor.separator : UIColor.clear
        standardAppearance = appearance
        scrollEdgeAppearance = appearance
        compactAppearance = appearance
        tintColor = title
    }
}

extension StatusBarStyle {
    /// The UIKit style, for a view controller's `preferredStatusBarStyle`.
    public var uiStatusBarStyle: UIStatusBarStyle {
        switch self {
        case .lightContent: .lightContent
        case .darkContent: .darkContent
        }
    }
}
#endif
