import Foundation
import TandemSubprocess
import TandemWire

/// A real nginx terminating TLS on a free loopback port in front of a plain HTTP/WebSocket backend, the
/// way many deployments run `tandem serve`. Its folder (configuration, logs, pid) is removed by `stop()`.
public final class NginxFront: Sendable {
    /// The port nginx serves TLS on.
    public let port: Int
    private let folder: String
    private let process: ChildProcess

    /// Whether nginx is installed (`scripts/test` installs it).
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") }

    /// Starts nginx proxying `https://127.0.0.1:<port>` (WebSocket upgrades included) to `127.0.0.1:backendPort`
    /// with the certificate chain and key given; returns once it accepts connections.
    public init(backendPort: Int, certificateChain: String, privateKey: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-nginx-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: "\(folder)/temp", withIntermediateDirectories: true)
        port = try LoopbackPort.free()
        let configuration = """
            daemon off;
            worker_processes 1;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log warn;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(folder)/temp/body;
                proxy_temp_path \(folder)/temp/proxy;
                fastcgi_temp_path \(folder)/temp/fastcgi;
                uwsgi_temp_path \(folder)/temp/uwsgi;
                scgi_temp_path \(folder)/temp/scgi;
                map $http_upgrade $connection_upgrade { default upgrade; '' close; }
                server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate \(certificateChain);
                    ssl_certificate_key \(privateKey);
                    location / {
                        proxy_pass http://127.0.0.1:\(backendPort);
                        proxy_http_version 1.1;
                        proxy_set_header Upgrade $http_upgrade;
                        proxy_set_header Connection $connection_upgrade;
                        proxy_set_header Host $http_host;
                        proxy_read_timeout 3600s;
                    }
                }
            }
            """
        try configuration.write(toFile: "\(folder)/nginx.conf", atomically: true, encoding: .utf8)
        process = try ChildProcess(executable: "/usr/sbin/nginx", arguments: ["-p", folder, "-c", "\(folder)/nginx.conf", "-e", "\(folder)/error.log"])
        let deadline = Date().addingTimeInterval(10)
        while !LoopbackPort.isAccepting(port) {
            guard process.isRunning, Date() < deadline else {
                let log = (try? String(contentsOfFile: "\(folder)/error.log", encoding: .utf8)) ?? ""
                stop()
                throw ServeProcessError("nginx did not start on port \(port): \(log)")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Stops nginx and removes its folder.
    public func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: folder)
    }
}
