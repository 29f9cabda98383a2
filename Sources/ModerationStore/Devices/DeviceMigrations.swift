import GRDB

/// The device token states, appended to the store's migrator. Never edit a landed migration.
enum DeviceMigrations {
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v30-seams-pushes-device-states") { db in
            // Each token's state with APNs (`Device.State`), and the time APNs gave for an
            // unregistered one. A token disabled before states existed was disabled for
            // BadDeviceToken (most often the wrong environment: tried in the other one next) or
            // for Unregistered (since it was disabled: only a later registration brings it back).
            try db.execute(
                sql: """
                    ALTER TABLE device ADD COLUMN state TEXT NOT NULL DEFAULT 'active';
                    ALTER TABLE device ADD COLUMN invalidSince DATETIME;
                    UPDATE device SET state = CASE WHEN disabledReason LIKE '%BadDeviceToken%' THEN 'wrong-environment' ELSE 'unregistered' END,
                        invalidSince = CASE WHEN disabledReason LIKE '%BadDeviceToken%' THEN NULL ELSE disabledAt END
                        WHERE active = 0;
                    CREATE INDEX device_user_state ON device(userId, state);
                    """)
        }

    }

    /// The latest registration Book Corners' export showed for a token, kept so that an APNs
    /// 410 whose `timestamp` is older than it (a push sent before a re-import that brought the
    /// token back) does not stop the token again.
    static func registerRegistrationTime(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v51-device-registered-at") { db in
            try db.execute(sql: "ALTER TABLE device ADD COLUMN registeredAt DATETIME")
        }
    }
}
