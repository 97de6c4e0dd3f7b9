import Foundation
import TandemSubprocess

/// A throwaway certificate authority and server certificates made with the openssl CLI for one test run:
/// valid for one day, never checked in.
public struct TestCertificates: Sendable {
    /// The folder holding every file; removed by `remove()`.
    public let folder: String
    /// The CA that signed the server certificates (PEM).
    public var caFile: String { "\(folder)/ca.pem" }
    /// Another CA, which signed nothing the server presents (PEM).
    public var otherCAFile: String { "\(folder)/other-ca.pem" }
    /// A server certificate for `localhost` and `127.0.0.1`, and its key.
    public var serverChain: String { "\(folder)/server.pem" }
    /// The server certificate's private key.
    public var serverKey: String { "\(folder)/server.key" }
    /// A server certificate for the same names signed by the other CA (a renewal from another issuer), and its key.
    public var otherServerChain: String { "\(folder)/other-server.pem" }
    /// That certificate's private key.
    public var otherServerKey: String { "\(folder)/other-server.key" }
    /// A server certificate like `serverChain` with an RSA key (which, unlike an EC key, can also do the key
    /// exchange itself: the suites without forward secrecy), and its key.
    public var rsaServerChain: String { "\(folder)/rsa-server.pem" }
    /// The RSA server certificate's private key.
    public var rsaServerKey: String { "\(folder)/rsa-server.key" }
    /// A self-signed certificate for `localhost`, and its key.
    public var selfSignedChain: String { "\(folder)/self.pem" }
    /// The self-signed certificate's private key.
    public var selfSignedKey: String { "\(folder)/self.key" }

    /// One set for the whole test process (made on first use), so suites do not each run openssl.
    public static let shared = Result { try make() }

    /// The shared set, or the reason it could not be made.
    public static func forTests() throws -> TestCertificates { try shared.get() }

    /// Makes the files. Throws when the openssl CLI is missing or fails.
    public static func make() throws -> TestCertificates {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-certs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let certificates = TestCertificates(folder: folder)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try run(["req", "-x509"] + key + ["-keyout", "\(folder)/ca.key", "-out", "\(folder)/ca.pem", "-days", "1", "-subj", "/CN=Tandem Test CA"])
        try run(["req", "-x509"] + key + ["-keyout", "\(folder)/other-ca.key", "-out", "\(folder)/other-ca.pem", "-days", "1", "-subj", "/CN=Other CA"])
        try run(["req", "-new"] + key + ["-keyout", "\(folder)/server.key", "-out", "\(folder)/server.csr", "-subj", "/CN=localhost"])
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: "\(folder)/server.ext", atomically: true, encoding: .utf8)
        try run(["x509", "-req", "-in", "\(folder)/server.csr", "-CA", "\(folder)/ca.pem", "-CAkey", "\(folder)/ca.key", "-CAcreateserial",
                 "-days", "1", "-extfile", "\(folder)/server.ext", "-out", "\(folder)/server.pem"])
        try run(["req", "-new"] + key + ["-keyout", "\(folder)/other-server.key", "-out", "\(folder)/other-server.csr", "-subj", "/CN=localhost"])
        try run(["x509", "-req", "-in", "\(folder)/other-server.csr", "-CA", "\(folder)/other-ca.pem", "-CAkey", "\(folder)/other-ca.key",
                 "-CAcreateserial", "-days", "1", "-extfile", "\(folder)/server.ext", "-out", "\(folder)/other-server.pem"])
        try run(["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(folder)/rsa-server.key", "-out", "\(folder)/rsa-server.csr",
                 "-subj", "/CN=localhost"])
        try run(["x509", "-req", "-in", "\(folder)/rsa-server.csr", "-CA", "\(folder)/ca.pem", "-CAkey", "\(folder)/ca.key", "-CAcreateserial",
                 "-days", "1", "-extfile", "\(folder)/server.ext", "-out", "\(folder)/rsa-server.pem"])
        try run(["req", "-x509"] + key + ["-keyout", "\(folder)/self.key", "-out", "\(folder)/self.pem", "-days", "1", "-subj", "/CN=localhost",
                 "-addext", "subjectAltName=DNS:localhost"])
        return certificates
    }

    /// Deletes the files.
    public func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private static func run(_ arguments: [String]) throws {
        let process = try ChildProcess(executable: "/usr/bin/openssl", arguments: arguments, standardError: .pipe)
        let text = String(decoding: process.standardError?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ServeProcessError("openssl \(arguments.joined(separator: " ")) failed: \(text)") }
    }
}
