extension DependencyDoctor {
    /// One file the build puts in the app: a framework or a resource bundle, and which spec makes it.
    struct Product {
        /// `ImSDK_Plus.framework`, `TUIChatResources.bundle`.
        var name: String
        /// The pod whose spec makes it.
        var root: String
        /// What in the spec makes it: the vendored path, or how it is built.
        var origin: String
        /// The installed pod or subspec that brought the spec in.
        var installedAs: String
    }

    /// Files of one name that two specs installed in one target both make: the build fails with
    /// "Multiple commands produce". Two subspecs of one pod vendoring their own copy are alternative
    /// flavours; two pods are two sources of one framework.
    func duplicateProducts(in target: String, _ pods: [PodDeclaration]) -> [DoctorFinding] {
        let platform = podfile.platform?.name ?? "ios"
        var byName: [String: [Product]] = [:]
        var order: [String] = []
        func add(_ product: Product) {
            if byName[product.name] == nil { order.append(product.name) }
            let existing = byName[product.name] ?? []
            // One pod target merges its subspecs' files: the same path (or bundle) from two subspecs is one file.
            guard !existing.contains(where: { $0.root == product.root && $0.origin == product.origin }) else { return }
            byName[product.name] = existing + [product]
        }
        var built: Set<String> = []
        for name in graph.reachable(from: pods.flatMap(\.specNames)) {
            let root = name.podRoot
            guard let spec = spec(of: root) else { continue }
            let lineage = spec.lineage(of: name)
            for level in lineage.isEmpty ? [spec] : lineage {
                let files = level.files(for: platform)
                for path in files.vendoredFrameworks {
                    for framework in Self.frameworkNames(vendoredAt: path) {
                        add(Product(name: framework, root: root, origin: "`\(path)`", installedAs: name))
                    }
                }
                for bundle in files.resourceBundles {
                    add(Product(name: "\(bundle).bundle", root: root, origin: "resource bundle `\(bundle)`", installedAs: name))
                }
                if podfile.usesFrameworks && files.hasSourceFiles && built.insert(root).inserted {
                    add(Product(name: "\(spec.moduleName ?? Self.moduleName(of: root)).framework", root: root,
                                origin: "built from its sources", installedAs: name))
                }
            }
        }
        var findings: [DoctorFinding] = []
        for name in order {
            guard let products = byName[name], products.count > 1 else { continue }
            let chains = products.map { product in
                chain(from: pods, to: { $0 == product.installedAs }) ?? (pods[0], [product.installedAs])
            }
            let paths = zip(chains, products).map { chain, product in chain.1 + ["\(product.name) (\(product.origin))"] }
            let declarations = chains.map(\.0)
            let lines = declarations.map(\.line)
            let sources = zip(products, chains).map { product, chain in "`\(chain.1.last ?? product.installedAs)` (\(product.origin))" }
            let multiple = "the app would get two files named \(name) (\"Multiple commands produce '…/\(name)'\")"
            if Set(products.map(\.root)).count == 1 {
                let root = products[0].root
                let distinct = Self.unique(declarations)
                let fix = distinct.count > 1
                    ? "declare one flavour: keep one of " + distinct.map { "`pod '\($0.name)'` (line \($0.line))" }.joined(separator: " and ")
                    : "declare the subspec you want (e.g. `pod '\(products[0].installedAs)'`) instead of `pod '\(distinct[0].name)'` (line \(distinct[0].line))"
                findings.append(DoctorFinding(
                    kind: .alternativeSubspecs, target: target,
                    message: "\(sources.joined(separator: " and ")) each vendor their own \(name): they are alternative flavours of `\(root)`, and \(multiple)",
                    paths: paths, fix: fix, line: lines.max()))
            } else {
                let owners = zip(declarations, products).map { declaration, product in
                    declaration.rootName == product.root
                        ? "`pod '\(declaration.name)'` (line \(declaration.line))"
                        : "`\(product.root)` (brought in by `pod '\(declaration.name)'`, line \(declaration.line))"
                }
                findings.append(DoctorFinding(
                    kind: .duplicateProduct, target: target,
                    message: "\(name) comes from \(Self.unique(products.map(\.root)).count) pods: \(sources.joined(separator: " and ")); \(multiple)",
                    paths: paths, fix: "keep one source of \(name): " + owners.joined(separator: " or "), line: lines.max()))
            }
        }
        return findings
    }

    /// The framework names a `vendored_frameworks` entry stands for (an `.xcframework` gives the app a
    /// `.framework` of the same name; `{A,B}` alternatives expand); none for a wildcard the doctor cannot
    /// resolve without the files.
    static func frameworkNames(vendoredAt path: String) -> [String] {
        let base = String(path.split(separator: "/").last ?? Substring(path))
        guard !base.contains("*"), !base.contains("?") else { return [] }
        var names = [base]
        if let open = base.firstIndex(of: "{"), let close = base[open...].firstIndex(of: "}") {
            let head = base[..<open]
            let tail = base[base.index(after: close)...]
            names = base[base.index(after: open)..<close].split(separator: ",").map { "\(head)\($0)\(tail)" }
        }
        return names.compactMap { name in
            if name.hasSuffix(".xcframework") { return String(name.dropLast(".xcframework".count)) + ".framework" }
            return name.hasSuffix(".framework") ? name : nil
        }
    }

    /// The module a pod builds when its spec names none: its name with every character outside
    /// `[A-Za-z0-9_]` made `_`, and a leading digit prefixed by `_` (CocoaPods' C99 identifier rule).
    static func moduleName(of pod: String) -> String {
        var name = String(pod.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
        if name.first?.isNumber == true { name = "_" + name }
        return name
    }

    /// `values` without repeats, first occurrence kept.
    static func unique<Value: Equatable>(_ values: [Value]) -> [Value] {
        values.reduce(into: []) { result, value in if !result.contains(value) { result.append(value) } }
    }
}
