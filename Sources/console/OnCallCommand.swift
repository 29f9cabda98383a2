import ArgumentParser

/// `console oncall …`: the on-call schedule from the command line.
struct OnCallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oncall", abstract: "Show the on-call schedule.",
        subcommands: [OnCallShowCommand.self])
}
