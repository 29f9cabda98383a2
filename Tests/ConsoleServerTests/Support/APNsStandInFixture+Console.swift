import Foundation
import Logging
import ModerationStore
import Synchronization
import TestSupport

@testable import ConsoleServer

extension APNsStandInFixture {
    /// The console's APNs settings for this stand-in: both environments on its port, its
    /// certificate trusted through the CA file (or not, with `trustingCertificate: false`).
    func consoleConfiguration(topic: String = APNsStandInFixture.topic, trustingCertificate: Bool = true) -> APNsConfiguration {
        APNsConfiguration(
            keyPath: key.keyPath, keyID: key.keyID, teamID: key.teamID, topic: topic, productionURL: baseURL, sandboxURL: baseURL,
            caFilePath: trustingCertificate ? certificatePath : nil, requestTimeout: .seconds(10))
    }

    /// A transport to this stand-in that signs with the stand-in's key on `clock`.
    func transport(
        topic: String = APNsStandInFixture.topic, trustingCertificate: Bool = true, clock: MovableWallClock = MovableWallClock()
    ) throws -> APNsTransport {
        let configuration = consoleConfiguration(topic: topic, trustingCertificate: trustingCertificate)
        let token = APNsProviderToken(
            key: try configuration.loadSigningKey(), keyID: configuration.keyID, teamID: configuration.teamID, now: { clock.now })
        return try APNsTransport(configuration: configuration, providerToken: token)
    }
}

/// A wall clock tests move by hand.
final class MovableWallClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date()) { current = Mutex(start) }

    var now: Date { current.withLock { $0 } }

    func advance(by interval: TimeInterval) { current.withLock { $0 += interval } }
}

/// A message as the outbox stores it: a real payload and the headers PushNotification makes.
enum APNsTestMessage {
    static func delivery(
        to tokens: [String], environment: Device.Environment = .sandbox, topic: String = APNsStandInFixture.topic,
        body: String = "Corner on <Main> & Co has been approved."
    ) -> OutboxDelivery {
        let id = UUID().uuidString.lowercased()
        let notification = PushNotification(title: "Your library is live", body: body, type: .libraryApproved, ids: ["library_id": 7])
        let headers = notification.headers(messageID: id, bundleID: topic, collapseID: nil, now: Date())
        let message = OutboxMessage(
            id: id, actionId: 1, recipientUserId: 42, eventType: .libraryApproved, payload: notification.payloadJSON(),
            headers: "{}", createdAt: Date())
        let devices = tokens.map { Device(userId: 42, token: $0, environment: environment, source: "import", createdAt: Date()) }
        return OutboxDelivery(message: message, headers: headers, devices: devices)
    }

    /// A device token as APNs hands them out: 64 hexadecimal digits.
    static func token(_ seed: Int) -> String {
        String(repeating: String(format: "%08x", seed), count: 8)
    }
}

extension APNsStandInFixture {
    /// Delivers every due message of `store` through this stand-in, as a console's dispatcher
    /// would (the standard policy unless told), until none is due; answers the messages handled.
    @discardableResult
    /// `sandboxHost` and `productionHost` name the stand-in as each APNs environment's host
    /// (`localhost` or `127.0.0.1`: its certificate has both), so it can tell them apart.
    func deliverDueMessages(
        of store: ModerationStore, policy: DeliveryPolicy = .standard, maxAttempts: Int = 10, now: Date = Date(),
        sandboxHost: String = "localhost", productionHost: String = "localhost"
    ) async throws -> Int {
        var configuration = consoleConfiguration()
        configuration.sandboxURL = URL(string: "https://\(sandboxHost):\(port)") ?? baseURL
        configuration.productionURL = URL(string: "https://\(productionHost):\(port)") ?? baseURL
        let transport = try APNsTransport(configuration: configuration)
        let dispatcher = OutboxDispatcher(
            store: store, transport: transport, policy: policy, configuration: .init(maxAttempts: maxAttempts), logger: Logger(label: "test"))
        var handled = 0
        do {
            while true {
                let batch = try await dispatcher.deliverDueBatch(now: now)
                guard batch > 0 else { break }
                handled += batch
            }
        } catch {
            await transport.shutdown()
            throw error
        }
        await transport.shutdown()
        return handled
    }
}
