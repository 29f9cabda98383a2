/// The sandbox's accounts. Passwords are public on purpose: this is demo data.
public enum SeedAccounts {
    /// The staff account `console demo` prints.
    public static let demoStaffUsername = "staff"
    public static let demoStaffPassword = "staff-demo-password"
    /// Every ordinary user shares this password (handy for testing the non-staff refusal).
    public static let userPassword = "user-demo-password"
    /// An ordinary user for trying the non-staff refusal.
    public static let demoUserUsername = "alice"

    static let staff = ["staff", "maria", "jonas"]
    static let users = [
        "alice", "bob", "chiara", "dmitri", "emma", "farid", "greta", "hiro", "ines", "jakob",
        "kim", "lena", "marco", "nadia", "oskar", "priya", "quentin", "rosa", "sven", "yuki",
    ]
}
