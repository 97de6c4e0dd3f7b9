// Apple platforms: scene notifications and `NWPathMonitor`. Compiled only where both exist.
#if canImport(Network) && canImport(UIKit)
import Foundation
import Network
import UIKit

/// The app's surroundings as iOS reports them: the app entering the background and the foreground, and
/// every network path `NWPathMonitor` reports (the current one first).
struct SystemAppEnvironment: AppEnvironment {
    func events() -> AsyncStream<AppEnvironmentEvent> {
        AsyncStream { continuation in
            let center = NotificationCenter.default
            let background = center.addObserver(forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil) { _ in
                continuation.yield(.background)
            }
            let foreground = center.addObserver(forName: UIApplication.willEnterForegroundNotification, object: nil, queue: nil) { _ in
                continuation.yield(.foreground)
            }
            let monitor = NWPathMonitor()
            monitor.pathUpdateHandler = { path in
                let kinds: [(NWInterface.InterfaceType, String)] = [(.wifi, "wifi"), (.cellular, "cellular"), (.wiredEthernet, "wiredEthernet"), (.other, "other")]
                continuation.yield(.path(NetworkPath(
                    isSatisfied: path.status == .satisfied, interfaces: kinds.filter { path.usesInterfaceType($0.0) }.map(\.1),
                    isExpensive: path.isExpensive, isConstrained: path.isConstrained)))
            }
            monitor.start(queue: DispatchQueue(label: "tandem.path-monitor"))
            continuation.onTermination = { _ in
                monitor.cancel()
                center.removeObserver(background)
                center.removeObserver(foreground)
            }
        }
    }
}
#endif
