import Foundation
import TestSupport
import Testing

@testable import Sandbox

@Suite("The APNs stand-in's pages on the sandbox: pushes (HTML, JSON) and faults", .timeLimit(.minutes(3)))
struct APNsStandInPagesTests {
    private static let token = String(repeating: "fedcba9876543210", count: 4)

    @Test("the pushes page lists what arrived, newest first, escaped, refreshing every 2 seconds")
    func pushesPage() async throws {
        try await APNsStandInFixture.run { apns in
            try await SandboxFixture.run(libraries: 10, apnsStandIn: apns.standIn) { sandbox in
                // setup: a hostile body and a second, later push
                let hostile = #"{"aps":{"alert":{"title":"<script>alert(1)</script>","body":"Tom & Jerry's"}}}"#
                _ = try await apns.raw(.POST, "/3/device/\(Self.token)", headers: try apns.validHeaders(), body: Array(hostile.utf8))
                _ = try await apns.raw(.POST, "/3/device/\(Self.token)", headers: try apns.validHeaders(), body: Array(#"{"aps":{"alert":"second"}}"#.utf8))

                // act
                let page = try await sandbox.raw(.GET, "/apns/pushes")
                let json = try await sandbox.raw(.GET, "/apns/pushes.json")

                // check
                #expect(page.status == 200)
                #expect(page.header("content-type") == "text/html; charset=utf-8")
                #expect(page.text.contains("<title>Pushes received by the APNs stand-in</title>"))
                #expect(page.text.contains(#"<meta http-equiv="refresh" content="2">"#))
                #expect(!page.text.contains("<script>"))
                #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
                #expect(page.text.contains("Tom &amp; Jerry&#39;s"))
                #expect(page.text.contains("\n"), "payload pretty-printed")
                let second = try #require(page.text.range(of: "second"))
                let first = try #require(page.text.range(of: "&lt;script&gt;"))
                #expect(second.lowerBound < first.lowerBound, "newest first")
                let object = try #require(try json.jsonObject())
                #expect(object["total"] as? Int == 2)
                #expect((object["pushes"] as? [[String: Any]])?.first?["httpVersion"] as? String == "HTTP/2")
            }
        }
    }

    @Test("faults are switched on and off over HTTP")
    func faultsOverHTTP() async throws {
        try await APNsStandInFixture.run { apns in
            try await SandboxFixture.run(libraries: 10, apnsStandIn: apns.standIn) { sandbox in
                // act
                let set = try await sandbox.raw(
                    .POST, "/apns/faults", json: #"{"unregistered":["\#(Self.token)"],"unavailable":2,"badDeviceToken":{"\#(Self.token)":"LocalHost"}}"#)
                let during = await apns.standIn.faults.current()
                let refused = try await sandbox.raw(.POST, "/apns/faults", json: "[1]")
                let cleared = try await sandbox.raw(.DELETE, "/apns/faults")
                let after = await apns.standIn.faults.current()

                // check
                #expect(set.status == 200)
                #expect(during.unregistered == [Self.token])
                #expect(during.unavailable == 2)
                #expect(during.badDeviceToken == [Self.token: "localhost"])
                #expect(refused.status == 400)
                #expect(refused.text.contains("unregistered"))
                #expect(cleared.status == 200)
                #expect(
                    after
                        == APNsFaultSettings(
                            unregistered: [], tooManyRequests: 0, unavailable: 0, delayMilliseconds: 0, expireProviderToken: 0, badDeviceToken: [:]))
            }
        }
    }

    @Test("without a stand-in the sandbox has no /apns pages")
    func absentWithoutStandIn() async throws {
        try await SandboxFixture.run(libraries: 10) { sandbox in
            // act
            let answer = try await sandbox.raw(.GET, "/apns/pushes")

            // check
            #expect(answer.status == 404)
        }
    }
}
