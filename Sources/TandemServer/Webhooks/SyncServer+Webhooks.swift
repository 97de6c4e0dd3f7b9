import Foundation
import TandemWire

extension SyncServer {
    /// The webhooks of a configuration that names endpoints (nil when it names none): the secret from
    /// the configuration or the data folder; in a cluster the sequencing's own service, alone an emitter
    /// and a dispatcher over the queue in the data folder (in memory with `--in-memory`), resuming what
    /// it held once the server listens (`start()`): a server that fails to start delivers nothing.
    static func webhooks(_ configuration: ServerConfiguration, sequencing: any SequencingService, group: EventLoopGroup,
                         wallClock: @escaping @Sendable () -> Int64, random: any RandomByteSource, metrics: ServerMetrics,
                         logger: Logger) throws(ServerStartError) -> (any WebhookService)? {
        guard !configuration.webhookURLs.isEmpty else { return nil }
        for url in configuration.webhookURLs where !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            throw .webhooks("\(url) is not an http:// or https:// URL")
        }
        // Records of a cluster's queue separate their parts with U+001F.
        for url in configuration.webhookURLs where url.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            throw .webhooks("\(url) holds a control character")
        }
        let secret: [UInt8]
        if let text = configuration.webhookSecret {
            secret = ServerSecret(text: text, source: .environment).key
            guard !secret.isEmpty else { throw .webhooks("--webhook-secret is empty") }
        } else {
            do throws(ServerSecretError) {
                secret = try ServerSecret.load(environment: [:], dataDirectory: configuration.dataDirectory, file: "webhook-secret", variable: nil).key
            } catch {
                throw .webhooks(error.description)
            }
        }
        var tls: TLSContext?
        if let ca = configuration.webhookCAFile {
            do throws(TLSError) {
                tls = try TLSContext(.client(additionalTrustRoots: [ca]))
            } catch {
                throw .webhooks("--webhook-ca \(ca): \(error.description)")
            }
        }
        let setup = WebhookSetup(
            settings: WebhookDispatcher.Settings(
                endpoints: configuration.webhookURLs, secret: secret,
                retry: WebhookRetryPolicy(base: configuration.webhookRetryBase,
                                          maxAge: configuration.webhookRetryPeriod),
                timeout: configuration.webhookTimeout),
            transport: HTTPWebhookTransport(group: group, tls: tls), debounce: configuration.webhookDebounce,
            wallClock: wallClock, random: random, metrics: metrics, logger: logger)
        if let shared = sequencing.webhooks(setup) { return shared }
        let queue: any WebhookQueue
        let pending: [WebhookDelivery]
        do throws(WebhookQueueError) {
            if configuration.inMemoryStorage {
                queue = InMemoryWebhookQueue()
                pending = []
            } else {
                let stored = try SQLiteWebhookQueue(path: (configuration.dataDirectory as NSString).appendingPathComponent("webhooks.sqlite"))
                queue = stored
                pending = try stored.pending()
            }
        } catch {
            throw .webhooks(error.description)
        }
        let dispatcher = WebhookDispatcher(settings: setup.settings, queue: queue, transport: setup.transport, now: wallClock,
                                           random: random, metrics: metrics, logger: logger, resuming: pending)
        let emitter = WebhookEmitter(dispatcher: dispatcher, scheduler: DispatchTimerScheduler(), debounce: setup.debounce, now: wallClock,
                                     random: random, logger: logger)
        return LocalWebhooks(emitter: emitter, dispatcher: dispatcher)
    }
}
