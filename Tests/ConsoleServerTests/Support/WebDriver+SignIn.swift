import Sandbox
import TestSupport

extension WebDriver {
    /// Signs the demo staff account in by typing into the real form, and waits for the dashboard.
    func signInAsStaff(console: String) async throws {
        try await go(console + "/sign-in")
        try await submitStaffSignIn()
        _ = try await currentURL { $0 == console + "/" }
    }

    /// Types the demo staff account into the sign-in form on screen and sends it.
    func submitStaffSignIn() async throws {
        try await type("staff", into: "#login")
        try await type(SeedAccounts.demoStaffPassword, into: "#password")
        try await click("button[type=submit]")
    }
}
