import ArgumentParser
import ConsoleServer
import Foundation

/// `console staff …`: what an operator does for the people who sign in.
struct StaffCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "staff", abstract: "Sign-in help for staff.", subcommands: [StaffSignInLinkCommand.self])
}

/// `console staff sign-in-link USERNAME`: a link that lets a browser new to the console sign in
/// even while strangers' failed guesses spend the sign-ins open to everyone.
struct StaffSignInLinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign-in-link",
        abstract: "Print a one-time link that makes a browser known for USERNAME, so its sign-in draws on the share kept for known browsers.",
        discussion: """
            Send it to the staff member by a channel you trust. It works once, within 48 hours, and grants \
            nothing by itself: Book Corners still checks the password.
            """)

    @OptionGroup var database: AuditDatabaseOptions

    @Option(name: .long, help: "The console's address as staff open it, to print a whole link. (env: CONSOLE_PUBLIC_URL)")
    var publicURL: String?

    @Argument(help: "The Book Corners username the link is for.")
    var username: String

    func validate() throws {
        let trimmed = username.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 150, trimmed.unicodeScalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) }) else {
            throw ValidationError("USERNAME must be 1 to 150 characters, without control characters.")
        }
    }

    func run() async throws {
        let path = try await database.withStore { store in try await SignInLink.issue(for: username, store: store) }
        let origin = EnvironmentOption.optionalString(publicURL, "CONSOLE_PUBLIC_URL").map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        ConsoleOutput.write("\(origin ?? "")\(path)\n")
        let note = origin == nil ? "The console's address goes in front of it (--public-url prints it whole). " : ""
        try? FileHandle.standardError.write(
            contentsOf: Data("\(note)It works once, until \(Date().addingTimeInterval(SignInLink.lifetime).formatted(.iso8601)).\n".utf8))
    }
}
