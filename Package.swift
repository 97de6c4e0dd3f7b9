// swift-tools-version:6.0
import PackageDescription

/// Settings for every Swift target. Swift 6 language mode (strict concurrency) comes with
/// tools 6.0; `ExistentialAny` makes every existential visible as `any P` at its use.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// Where TandemClient links TandemWire's sockets, event loop and OpenSSL TLS for its default transports.
/// Apple platforms use URLSession instead, so an app's build holds no server-side networking code; the
/// client's sources test the same list through the `TANDEM_WIRE_TRANSPORT` condition.
let wireTransportPlatforms: [Platform] = [.linux]

let package = Package(
    name: "Tandem",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "TandemKit", targets: ["TandemKit"]),
        .library(name: "TandemKitTesting", targets: ["TandemKitTesting"]),
        .library(name: "TandemProtocol", targets: ["TandemProtocol"]),
        .library(name: "TandemWire", targets: ["TandemWire"]),
        .library(name: "TandemClient", targets: ["TandemClient"]),
        .library(name: "TandemServer", targets: ["TandemServer"]),
        .library(name: "TandemCluster", targets: ["TandemCluster"]),
        .library(name: "TandemTesting", targets: ["TandemTesting"]),
        .library(name: "TandemProxy", targets: ["TandemProxy"]),
        .executable(name: "tandem", targets: ["tandem"]),
    ],
    targets: [
        // System libraries (Linux side; Apple platforms use CryptoKit / the SDK's sqlite3).
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CSSL",
            pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),

        // Linux system calls the Glibc module does not export (epoll, eventfd, accept4).
        .target(name: "CTandemSystem"),
        // A SQLite VFS that writes a WAL transaction's frames with one call, and yield points for background
        // SQLite work (see its headers).
        .target(name: "CSQLiteWALBuffer", dependencies: ["CSQLite"]),

        // Child processes for the tests and tools, through posix_spawn (Foundation's Process can crash the parent
        // while it closes descriptors, swift-corelibs-foundation#5472).
        .target(name: "CTandemSpawn"),
        .target(name: "TandemSubprocess", dependencies: ["TandemSynchronization", "CTandemSpawn"], swiftSettings: swiftSettings),

        // Atomic operations on one word for every platform (the compiler's builtins), under TandemSynchronization.
        .target(name: "CTandemAtomics"),
        // A lock and atomics for every platform the apps run on (Swift's `Mutex` and `Atomic` need iOS 18).
        .target(name: "TandemSynchronization", dependencies: ["CTandemAtomics"], swiftSettings: swiftSettings),

        // The architecture kit: Foundation-only, portable, standalone.
        .target(name: "TandemKit", dependencies: ["TandemSynchronization"], swiftSettings: swiftSettings),
        // TestStore and other test helpers for apps that use TandemKit (links Swift Testing).
        .target(name: "TandemKitTesting", dependencies: ["TandemSynchronization", "TandemKit"], swiftSettings: swiftSettings),

        // Pure protocol model: JSON values, JSON Pointer ops, wire messages, token claims.
        .target(name: "TandemProtocol", swiftSettings: swiftSettings),

        // The socket-free half of the wire: HTTP/1.1 messages, RFC 6455 frames and handshakes, URL rules,
        // digests. Byte in, events out; what an app's client needs on every platform.
        .target(
            name: "TandemWireCore",
            dependencies: [
                "TandemSynchronization",
                "TandemProtocol",
                .target(name: "CCrypto", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: swiftSettings
        ),

        // The event loop, sockets, OpenSSL TLS, and the HTTP/WebSocket server and clients on them.
        .target(
            name: "TandemWire",
            dependencies: [
                "TandemSynchronization",
                "TandemProtocol",
                "TandemWireCore",
                .target(name: "CCrypto", condition: .when(platforms: [.linux])),
                .target(name: "CSSL", condition: .when(platforms: [.linux])),
                .target(name: "CTandemSystem", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: swiftSettings
        ),

        // The fault-injecting TCP link behind `tandem proxy`: latency, jitter, loss, bandwidth, cuts.
        .target(name: "TandemProxy", dependencies: ["TandemSynchronization", "TandemWire"], swiftSettings: swiftSettings),

        // `tandem doctor`: reads Podfiles, their locks, podspecs and Package.resolved, and finds the dependency
        // mistakes that break builds.
        .target(name: "TandemDoctor", dependencies: ["TandemProtocol"], swiftSettings: swiftSettings),

        // A Redis client: RESP2/RESP3, pipelining, reconnect, scripts.
        .target(name: "TandemRedis", dependencies: ["TandemSynchronization", "TandemKit", "TandemWire"], swiftSettings: swiftSettings),

        // The client library an app links to share its page state.
        .target(
            name: "TandemClient",
            dependencies: [
                "TandemSynchronization", "TandemKit", "TandemProtocol", "TandemWireCore",
                .target(name: "TandemWire", condition: .when(platforms: wireTransportPlatforms)),
            ],
            swiftSettings: swiftSettings + [.define("TANDEM_WIRE_TRANSPORT", .when(platforms: wireTransportPlatforms))]
        ),


        // Rooms, sequencer, auth, presence, storage, limits, metrics; the browser page's files (Page/Assets)
        // built into the binary.
        .target(
            name: "TandemServer",
            dependencies: [
                "TandemSynchronization",
                "TandemKit",
                "TandemProtocol",
                "TandemWire",
                .target(name: "CSQLite", condition: .when(platforms: [.linux])),
                .target(name: "CSQLiteWALBuffer", condition: .when(platforms: [.linux])),
                .target(name: "CCrypto", condition: .when(platforms: [.linux])),
                .target(name: "CTandemSystem", condition: .when(platforms: [.linux])),
            ],
            resources: [.embedInCode("Page/Assets")],
            swiftSettings: swiftSettings
        ),

        // Cluster mode: rooms sequenced through a shared Redis log (the Redis scripts, the log follower,
        // cross-node presence), plugged into the server as its `RoomSequencing`.
        // Its Lua scripts are files (Scripts/Lua), built into the binary.
        .target(
            name: "TandemCluster",
            dependencies: ["TandemSynchronization", "TandemServer", "TandemRedis", "TandemProtocol", "TandemWire"],
            resources: [.embedInCode("Scripts/Lua")],
            swiftSettings: swiftSettings
        ),

        // The benchmark suites `tandem bench` runs, their harnesses (the relay comparison, the idle-connection
        // probe) and the host-steal rule: tooling, not a product.
        .target(
            name: "TandemBench",
            dependencies: ["TandemSynchronization", "TandemKit", "TandemProtocol", "TandemWire", "TandemClient", "TandemServer", "TandemCluster", "TandemRedis", "TandemProxy", "TandemSubprocess"],
            swiftSettings: swiftSettings
        ),

        // Test doubles for apps (and this package's tests): a manual clock and timer scheduler, a transport
        // with no socket where the test plays the server, and a real server in the test process.
        .target(
            name: "TandemTesting",
            dependencies: ["TandemSynchronization", "TandemKit", "TandemProtocol", "TandemWire", "TandemClient", "TandemServer"],
            swiftSettings: swiftSettings
        ),

        // The command-line program's logic (argument parsing, commands), testable in process.
        .target(
            name: "TandemCLI",
            dependencies: ["TandemSynchronization", "TandemKit", "TandemProtocol", "TandemWire", "TandemClient", "TandemServer", "TandemCluster", "TandemBench", "TandemProxy", "TandemDoctor"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "tandem", dependencies: ["TandemCLI"], swiftSettings: swiftSettings),

        // Helpers shared by the test targets: bounded waits, mailboxes, Python interop peers.
        .target(name: "TandemTestSupport", dependencies: ["TandemKit", "TandemProtocol", "TandemWire", "TandemRedis", "TandemSubprocess"], path: "Tests/TandemTestSupport", swiftSettings: swiftSettings),

        .testTarget(name: "TandemKitTests", dependencies: ["TandemTesting", "TandemKit", "TandemKitTesting"], swiftSettings: swiftSettings),
        .testTarget(name: "TandemProtocolTests", dependencies: ["TandemProtocol", "TandemTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "TandemWireTests", dependencies: ["TandemWire", "TandemWireCore", "TandemProxy", "TandemSubprocess", "TandemTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "TandemRedisTests", dependencies: ["TandemTesting", "TandemRedis", "TandemWire", "TandemProtocol", "TandemKit", "TandemTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "TandemClusterTests", dependencies: ["TandemCluster", "TandemServer", "TandemRedis", "TandemWire", "TandemProtocol", "TandemTestSupport", "TandemTesting"], swiftSettings: swiftSettings),
        .testTarget(name: "TandemClientTests", dependencies: ["TandemClient", "TandemSubprocess", "TandemProxy", "TandemTesting", "TandemServer", "TandemWire", "TandemKitTesting", "TandemTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "TandemServerTests", dependencies: ["TandemTesting", "TandemSubprocess", "TandemServer", "TandemCluster", "TandemWire", "TandemProtocol", "TandemTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "TandemBenchTests", dependencies: ["TandemBench", "TandemProtocol", "TandemWire", "TandemTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "TandemSynchronizationTests", dependencies: ["TandemSynchronization"], swiftSettings: swiftSettings),
        .testTarget(name: "TandemSubprocessTests", dependencies: ["TandemSubprocess"], swiftSettings: swiftSettings),
        .testTarget(name: "TandemDoctorTests", dependencies: ["TandemDoctor"], swiftSettings: swiftSettings),
        .testTarget(name: "TandemCLITests", dependencies: ["TandemCLI", "TandemProxy", "TandemProtocol", "TandemTestSupport"], swiftSettings: swiftSettings),
    ]
)
