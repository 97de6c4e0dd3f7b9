#if canImport(UIKit)
import TandemKit
import UIKit

/// A scroll view's delegate that hands every offset to `report` (typically `ScrollSync.sourceDidScroll`).
/// An app with a delegate of its own calls `report` from its `scrollViewDidScroll` instead. The logic
/// lives in `ScrollSync`, which is tested on every platform; this only converts the point.
@MainActor
public final class ScrollViewReporter: NSObject, UIScrollViewDelegate {
    private let report: @MainActor (ContentOffset) -> Void

    /// A delegate that reports through `report`.
    public init(report: @escaping @MainActor (ContentOffset) -> Void) {
        self.report = report
    }

    /// Reports the scroll view's offset.
    public func scrollViewDidScroll(_ scrollView: UIScrollView) {
        report(ContentOffset(scrollView.contentOffset))
    }
}
#endif
