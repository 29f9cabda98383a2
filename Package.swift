// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "BookCornersConsole",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "console", targets: ["console"])
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        // Already under async-http-client; named so the client can tell a refused connection apart.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Already under Hummingbird; named for the HTTP/1 handlers in front of its HTTP-types codec.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // APNs: TLS trust roots for the provider API and the stand-in's self-signed certificate.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        // Operations: /metrics in Prometheus' format, through swift-metrics (Hummingbird's MetricsMiddleware speaks it).
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Test-only: property-based checks, and an independent CSV reader to parse the audit export back.
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/yaslab/CSV.swift.git", exact: "2.5.2"),
        // Test-only: a clock the tests move by hand, for the state machines' direct tests.
        .package(url: "https://github.com/pointfreeco/swift-clocks.git", from: "1.1.1"),
    ],
    targets: [
        .executableTarget(
            name: "console",
            dependencies: [
                "ConsoleServer", "Sandbox", "BookCornersAPI", "ModerationStore", "ModerationVocabulary",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        // The statuses, decisions' targets and reasons every other target speaks of: the one
        // place they are spelled, shared by the backend client, the store and the sandbox.
        .target(name: "ModerationVocabulary"),
        .target(
            name: "BookCornersAPI",
            dependencies: [
                "ModerationVocabulary",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            exclude: ["Generated/openapi-generator-config.yaml"]
        ),
        .target(
            name: "ModerationStore",
            dependencies: [
                "ModerationVocabulary",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for exports that read rows without copying them.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "Sandbox",
            dependencies: [
                "BookCornersAPI",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "ConsoleServer",
            dependencies: [
                "BookCornersAPI", "ModerationStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ]
        ),
        .executableTarget(
            name: "audit-benchmark",
            dependencies: ["ModerationStore", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Benchmarks/AuditBenchmark"
        ),
        .executableTarget(
            name: "outbox-benchmark",
            dependencies: ["ConsoleServer", "ModerationStore", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log")],
            path: "Benchmarks/OutboxBenchmark"
        ),
        // The page benchmark's console: the console plus saved pages answered as constants (never in `console` itself).
        .executableTarget(
            name: "page-benchmark",
            dependencies: [
                "ConsoleServer", .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Benchmarks/PageBenchmark"
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                "Sandbox", "BookCornersAPI",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/TestSupport"
        ),
        // Hostile text and a seeded generator for the property checks of every test target.
        .target(
            name: "PropertySupport",
            dependencies: [.product(name: "PropertyBased", package: "swift-property-based")],
            path: "Tests/PropertySupport"
        ),
        .testTarget(
            name: "BookCornersAPITests",
            dependencies: [
                "BookCornersAPI", "Sandbox", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(
            name: "SandboxTests",
            dependencies: [
                "Sandbox", "BookCornersAPI", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "ModerationStoreTests",
            dependencies: [
                "ModerationStore", "BookCornersAPI", "PropertySupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "CSV", package: "CSV.swift"),
            ]
        ),
        .testTarget(
            name: "ConsoleServerTests",
            dependencies: [
                "ConsoleServer", "Sandbox", "TestSupport", "PropertySupport", "ModerationStore",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Clocks", package: "swift-clocks"),
            ],
            // Read from the source tree at test time (and rewritten by RECORD_SNAPSHOTS=1), not bundled.
            exclude: ["Snapshots"]
        ),
    ]
)
