import TandemClient

/// Draws toasts as console lines; fading takes a moment, as on screen.
struct ConsolePresenter: FeedbackPresenter {
    let device: String
    let say: @Sendable (String) -> Void

    func present(_ item: FeedbackItem) async {
        say("\(device): toast “\(item.message.text)” appears")
    }

    func dismiss(_ item: FeedbackItem) async {
        try? await Task.sleep(for: .milliseconds(40))
        say("\(device): toast “\(item.message.text)” is gone")
    }
}
