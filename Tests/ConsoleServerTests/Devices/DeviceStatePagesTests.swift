import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// How My devices shows a token APNs refused, through the console's real routes.
@Suite("Device states on My devices", .timeLimit(.minutes(3)))
struct DeviceStatePagesTests {
    @Test("a token APNs answered BadDeviceToken for is shown as the wrong environment, with APNs' reason and the time, and what brings it back")
    func wrongEnvironmentShown() async throws {
        let transport = ScriptedTransport()
        transport.script([
            DeliveryResult(
                outcome: .deviceDisabled, httpStatus: 400,
                reason: "APNs answered BadDeviceToken (HTTP 400): the device token is not valid for this environment.")
        ])
        try await ConsoleFixture.withConsole(
            mirror: .empty,
            configure: { settings in
                settings.outbox = OutboxDeliveryConfiguration(
                    transport: .custom(transport, description: "A scripted transport"), dispatcher: .init(idlePoll: 0.1))
            }
        ) { browser, _, directory in
            // setup: staff adds their phone; a push to them is refused
            try await browser.signIn()
            let page = try await browser.get("/devices")
            let token = String(repeating: "9f", count: 32)
            try await browser.post("/devices", form: [("csrf", page.csrfToken ?? ""), ("token", token), ("environment", "production")])
            let store = try ModerationStore(path: directory.path("console.sqlite"))
            let staffID = try await #require(try store.devices().first?.userId)
            let message = try await OutboxFiller(path: directory.path("console.sqlite")).add(1, firstRecipient: staffID)[0]
            for _ in 0..<100 where try await store.outboxMessage(id: message.id)?.status != .noDevice {
                try await Task.sleep(for: .milliseconds(50))
            }
            // act
            let devices = try await browser.get("/devices")
            // check
            let device = try await #require(try store.devices(userID: staffID).first)
            #expect(device.state == .wrongEnvironment)
            let when = try #require(device.disabledAt).formatted(.iso8601)
            #expect(devices.contains(#"<span class="status status-wrong-environment">"#), "\(devices.html)")
            #expect(devices.contains("BadDeviceToken in production at \(when)"))
            #expect(devices.contains("the next push tries sandbox, and an import brings it back"))
        }
    }
}
