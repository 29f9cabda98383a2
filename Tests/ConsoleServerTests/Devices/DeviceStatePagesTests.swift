import Foundation
import ModerationStore
import TestSupport
import Testing

@testable import ConsoleServer

/// How My devices shows a token APNs refused, through the console's real routes.
@Suite("Device states on My devices", .timeLimit(.minutes(3)))
struct DeviceStatePagesTests {
    @Test("a token APNs answered BadDeviceToken for is shown as paused, in words with the time on the team's clock and what brings it back, not in APNs' codes")
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
            let when = TeamClock.stamp(try #require(device.disabledAt))
            #expect(devices.contains(#"<span class="status status-wrong-environment">"#), "\(devices.html)")
            #expect(
                devices.contains("Apple did not accept this token for live apps (production) on \(when); it may belong to test apps (sandbox)"),
                "\(devices.html)")
            #expect(devices.contains("The next push tries that, and Book Corners’ next import brings it back"), "\(devices.html)")
            #expect(!devices.contains("BadDeviceToken") && !devices.contains("(HTTP 400)"), "\(devices.html)")
        }
    }
}
