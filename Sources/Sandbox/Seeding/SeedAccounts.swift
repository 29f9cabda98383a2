import GRDB

/// The sandbox's accounts. Passwords are public on purpose: this is demo data.
public enum SeedAccounts {
    /// The staff account `console demo` prints.
    public static let demoStaffUsername = "staff"
    public static let demoStaffPassword = "staff-demo-password"
    /// Every ordinary user shares this password (handy for testing the non-staff refusal).
    public static let userPassword = "user-demo-password"
    /// An ordinary user for trying the non-staff refusal.
    public static let demoUserUsername = "alice"

    /// The seeded staff accounts of the sandbox database at `path` (id and username), in seeding order:
    /// what `console demo` builds its demo rotation from.
    public static func staffAccounts(databasePath path: String) throws -> [(id: Int, username: String)] {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        return try DatabaseQueue(path: path, configuration: configuration).read { db in
            try Row.fetchAll(db, sql: "SELECT id, username FROM user WHERE isStaff = 1 AND username <> 'seedbot' ORDER BY id")
                .map { (id: $0["id"], username: $0["username"]) }
        }
    }

    static let staff = ["staff", "maria", "jonas"]

    /// The username of the `number`th extra staff account (`--extra-staff`): `soak01`, `soak02`, ….
    public static func extraStaffUsername(_ number: Int) -> String {
        "soak" + (number < 10 ? "0" : "") + String(number)
    }
    static let users = [
        "alice", "bob", "chiara", "dmitri", "emma", "farid", "greta", "hiro", "ines", "jakob",
        "kim", "lena", "marco", "nadia", "oskar", "priya", "quentin", "rosa", "sven", "yuki",
    ]
}
