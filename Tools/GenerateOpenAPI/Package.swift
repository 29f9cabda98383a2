// swift-tools-version:6.0
// A separate package so the main build never compiles the generator: run
// scripts/generate-openapi.sh to regenerate Sources/BookCornersAPI/Generated.
import PackageDescription

let package = Package(
    name: "GenerateOpenAPI",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator.git", exact: "1.14.3"),
    ]
)
