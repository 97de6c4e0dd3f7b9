// swift-tools-version:6.0
import PackageDescription

// The co-browsing page of the articles as two simulated devices on an in-process server, built only on
// Tandem's public API. Run it with `swift run --package-path Examples/CoBrowse cobrowse`.
let package = Package(
    name: "CoBrowse",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(name: "Tandem", path: "../..")],
    targets: [
        .executableTarget(
            name: "cobrowse",
            dependencies: [
                .product(name: "TandemClient", package: "Tandem"),
                .product(name: "TandemServer", package: "Tandem"),
                .product(name: "TandemProxy", package: "Tandem"),
                // The event loop the in-process proxy runs on.
                .product(name: "TandemWire", package: "Tandem"),
            ]
        ),
    ]
)
