#if canImport(SwiftUI)
import SwiftUI
import TandemKit

extension View {
    /// Shows `feedback`'s toasts at the bottom of this view, fading each in and out over `fade` seconds
    /// and reporting the end of every fade to the model, so the queue completes a toast only once it has
    /// disappeared.
    public func feedbackToasts(_ feedback: FeedbackModel, fade: Double = 0.25) -> some View {
        overlay(alignment: .bottom) { FeedbackToastView(model: feedback, fade: fade) }
    }
}

/// Draws the model's toast; all timing and ordering live in `FeedbackModel` and `FeedbackQueue`.
struct FeedbackToastView: View {
    let model: FeedbackModel
    let fade: Double
    @State private var opacity = 0.0

    var body: some View {
        Group {
            if let item = model.item {
                Text(item.message.text)
                    .padding(12)
                    .foregroundStyle(.white)
                    .background(.black.opacity(0.8), in: RoundedRectangle(cornerRadius: 8))
                    .opacity(opacity)
                    .padding(.bottom, 24)
            }
        }
        .onChange(of: model.phase) { _, phase in
            let target: Double
            switch phase {
            case .appearing: target = 1
            case .disappearing: target = 0
            case .visible, .hidden: return
            }
            withAnimation(.easeInOut(duration: fade)) {
                opacity = target
            } completion: {
                model.transitionFinished()
            }
        }
    }
}
#endif
