#if canImport(UIKit)
import TandemKit
import UIKit

/// Shows `FeedbackQueue`'s toasts as a label at the bottom of `container`, fading in and out.
/// `present` and `dismiss` return when their animation has finished, which is what lets the queue
/// complete a toast's callers only once it has fully disappeared.
@MainActor
public final class ToastPresenter: FeedbackPresenter {
    private let container: UIView
    private let fade: TimeInterval

    /// A presenter drawing into `container` with `fade` seconds per animation.
    public init(container: UIView, fade: TimeInterval = 0.25) {
        self.container = container
        self.fade = fade
    }

    /// Fades the toast in; returns when it is fully visible.
    nonisolated public func present(_ item: FeedbackItem) async {
        await MainActor.run {
            let container = self.container
            let label = UILabel()
            label.tag = Self.tag(item)
            label.text = item.message.text
            label.textAlignment = .center
            label.numberOfLines = 0
            label.textColor = .white
            label.backgroundColor = UIColor.black.withAlphaComponent(0.8)
            label.layer.cornerRadius = 8
            label.clipsToBounds = true
            label.alpha = 0
            label.translatesAutoresizingMaskIntoConstraints = false
            container.addSubview(label)
            NSLayoutConstraint.activate([
                label.centerXAnchor.constraint(equalTo: container.centerXAnchor),
                label.bottomAnchor.constraint(equalTo: container.safeAreaLayoutGuide.bottomAnchor, constant: -24),
                label.widthAnchor.constraint(lessThanOrEqualTo: container.widthAnchor, constant: -48),
            ])
        }
        await animate { self.container.viewWithTag(Self.tag(item))?.alpha = 1 }
    }

    /// Fades the toast out; returns when it is gone.
    nonisolated public func dismiss(_ item: FeedbackItem) async {
        await animate { self.container.viewWithTag(Self.tag(item))?.alpha = 0 }
        await MainActor.run { self.container.viewWithTag(Self.tag(item))?.removeFromSuperview() }
    }

    nonisolated private func animate(_ changes: @escaping @MainActor @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Task { @MainActor in
                UIView.animate(withDuration: self.fade, animations: { MainActor.assumeIsolated { changes() } },
                               completion: { _ in continuation.resume() })
            }
        }
    }

    nonisolated private static func tag(_ item: FeedbackItem) -> Int { 0x7A4D_0000 + Int(truncatingIfNeeded: item.ticket.hashValue & 0xFFFF) }
}
#endif
