import TandemDoctor
import TandemProtocol

/// `tandem doctor`: reads a Podfile, its lock, the podspecs and SwiftPM's resolution, and explains the
/// dependency mistakes that break the build ("Multiple commands produce …") before the build does.
enum DoctorCommand {
    static let spec = CommandSpec(
        name: "doctor",
        summary: "Find duplicate frameworks, redundant pods and stale locks in a Podfile (exit 0 none, 1 findings, 2 unreadable input).",
        options: [
            .value("podfile", "FILE", help: "The Podfile.", default: "Podfile"),
            .value("lock", "FILE", help: "Its lock (default: Podfile.lock next to the Podfile)."),
            .value("specs", "PATH", help: "Podspecs in JSON (`pod ipc spec`, the CocoaPods cache): a file or a folder (default: Pods/Local Podspecs)."),
            .value("package-resolved", "FILE", help: "SwiftPM's Package.resolved (default: the workspace's or project's, when there is one)."),
            .flag("json", help: "Print the findings as one JSON document."),
        ]
    )

    static let command = Command(spec: spec) { arguments, context in
        let inputs: DoctorInputs
        do {
            inputs = try DoctorInputs(podfile: arguments.value("podfile") ?? "Podfile", lock: arguments.value("lock"),
                                      specs: arguments.value("specs"), packageResolved: arguments.value("package-resolved"))
        } catch {
            context.console.err("tandem doctor: error: \(error)")
            return ExitCode.usage
        }
        let findings = DependencyDoctor(podfile: inputs.podfile, lock: inputs.lock, specs: inputs.specs, packages: inputs.packages).findings()
        if arguments.flag("json") {
            context.console.out(json(findings, read: inputs.read))
        } else {
            for line in text(findings, read: inputs.read, podfile: arguments.value("podfile") ?? "Podfile") { context.console.out(line) }
        }
        return findings.isEmpty ? ExitCode.success : ExitCode.failure
    }

    /// `{"read":[…],"findings":[…]}`, members in UTF-8 order.
    static func json(_ findings: [DoctorFinding], read: [String]) -> String {
        let document: JSONValue = .object(["read": .array(read.map(JSONValue.string)), "findings": .array(findings.map(\.jsonValue))])
        return String(decoding: document.serializedBytes(), as: UTF8.self)
    }

    /// The report for a person: one block per finding with its proof and its fix.
    static func text(_ findings: [DoctorFinding], read: [String], podfile: String) -> [String] {
        var lines = ["read: " + read.joined(separator: ", ")]
        guard !findings.isEmpty else { return lines + ["no findings"] }
        lines.append("\(findings.count) finding\(findings.count == 1 ? "" : "s"):")
        for finding in findings {
            let place = [finding.target.map { "target \($0)" }, finding.line.map { "\(podfile):\($0)" }].compactMap { $0 }
            lines.append("")
            lines.append("\(finding.kind.rawValue)" + (place.isEmpty ? "" : " (\(place.joined(separator: ", ")))"))
            lines.append("  \(finding.message)")
            for (index, path) in finding.paths.enumerated() {
                lines.append((index == 0 ? "  proof: " : "         ") + path.joined(separator: " → "))
            }
            lines.append("  fix:   \(finding.fix)")
        }
        return lines
    }
}
