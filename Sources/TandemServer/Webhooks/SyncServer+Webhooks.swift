import Foundation
import TandemWire

extension SyncServer {
    /// The emitter and dispatcher of a configuration that names webhook endpoints (nil when it names
    /// none): the secret from the configuration or the data folder, the queue in the data folder (in
    /// memory with `--in-memory`), and what the queue held from before, to resume once the server
    /// listens (`dispatcher.start()`): a server that fails to start delivers nothing.
    static func webhooks(_ configuration: ServerConfiguration, environment: [String: String], group: EventLoopGroup,
                         wallClock: @escaping @Sendable () -> Int64, random: any RandomByteSource, metrics: ServerMetrics,
                         logger: Logger) throws(ServerStartError) -> (emitter: WebhookEmitter, dispatcher: WebhookDispatcher)? {
        guard !configuration.webhookURLs.isEmpty else { return nil }
        guard configuration.redisURL == nil else {
            throw .webhooks("webhooks are not sent in cluster mode yet (each event must be delivered by exactly one node); run without --webhook or without --redis")
        }
        for url in configuration.webhookURLs where !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            throw .webhooks("\(url) is not an http:// or https:// URL")
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
        let queue: any WebhookQueue
        let pending: [WebhookDelivery]
        do throws(WebhookQueueError) {
            queue = configuration.inMemoryStorage
                ? InMemoryWebhookQueue()
                : try SQLiteWebhookQueue(path: (configuration.dataDirectory as NSString).appendingPathComponent("webhooks.sqlite"))
            pending = try queue.pending()
        } catch {
            throw .webhooks(error.description)
        }
        let settings = WebhookDispatcher.Settings(
            endpoints: configuration.webhookURLs, secret: secret,
            retry: WebhookRetryPolicy(baseMilliseconds: Int64(configuration.webhookRetryBaseMilliseconds),
                                      maxAgeMilliseconds: Int64(configuration.webhookRetryHours) * 3_600_000),
            timeout: .milliseconds(configuration.webhookTimeoutMilliseconds))
        var tls: TLSContext?
        if let ca = configuration.webhookCAFile {
            do throws(TLSError) {
                tls = try TLSContext(.client(additionalTrustRoots: [ca]))
            } catch {
                throw .webhooks("--webhook-ca \(ca): \(error.description)")
            }
        }
        let dispatcher = WebhookDispatcher(settings: settings, queue: queue, transport: HTTPWebhookTransport(group: group, tls: tls), now: wallClock,
                                           random: random, metrics: metrics, logger: logger, resuming: pending)
        let emitter = WebhookEmitter(dispatcher: dispatcher, scheduler: DispatchTimerScheduler(),
                                     debounce: .milliseconds(configuration.webhookDebounceMilliseconds), now: wallClock, random: random, logger: logger)
        return (emitter, dispatcher)
    }
}
