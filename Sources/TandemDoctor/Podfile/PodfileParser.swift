/// Reads the Ruby DSL subset real Podfiles are written in, without running Ruby: `platform`, `source`,
/// `use_frameworks!`, `target … do` / `abstract_target … do` blocks (nested), `abstract!`, `inherit!`,
/// `pod` with version requirements and `:path`, `:git` (`:tag`, `:branch`, `:commit`), `:podspec`,
/// `:subspecs` and the other options, `def` blocks of pods called by name inside targets, and hooks
/// (`post_install do … end` and the like), which are skipped whole. Settings that do not change the
/// dependency graph (`install!`, `project`, `inhibit_all_warnings!`, `ENV[…] = …`, …) are read past.
///
/// Anything else is a `DoctorInputError` naming its line: a condition around pods, say, cannot be
/// evaluated without Ruby, and a guess would report on a graph the Podfile does not describe.
struct PodfileParser {
    let text: String
    let file: String

    private enum Frame {
        case target(PodfileTarget)
        case method(name: String, pods: [PodDeclaration], line: Int)
        /// Ruby the reader does not interpret (a hook): skipped to its `end`, `depth` blocks deep.
        case skipped(depth: Int, braces: Int)
    }

    /// Statements that do not change which pods a target links.
    private static let settings: Set<String> = [
        "install!", "project", "xcodeproj", "workspace", "inhibit_all_warnings!", "use_modular_headers!", "plugin",
        "ensure_bundler!", "supports_swift_versions", "generate_bridge_support!", "set_arc_compatibility_flag!",
        "link_with", "require", "require_relative", "ignore_all_warnings!", "script_phase", "installation_method",
    ]
    private static let hooks: Set<String> = ["post_install", "pre_install", "post_integrate", "pre_integrate"]
    /// Ruby keywords that open a block closed by `end`.
    private static let blockKeywords: Set<String> = ["if", "unless", "case", "while", "until", "begin", "def", "class", "module", "for"]

    func parse() throws(DoctorInputError) -> Podfile {
        var podfile = Podfile()
        var stack: [Frame] = [.target(podfile.root)]
        var methods: [String: [PodDeclaration]] = [:]
        let tokenizer = RubyTokenizer(file: file)
        for (line, tokens) in try logicalLines(tokenizer) {
            guard let top = stack.last else { break }
            if case .skipped(let depth, let braces) = top {
                let (opened, closed, braceDelta) = Self.blockBalance(tokens)
                let newDepth = depth + opened - closed
                let newBraces = braces + braceDelta
                stack.removeLast()
                if newDepth > 0 || newBraces > 0 { stack.append(.skipped(depth: newDepth, braces: max(0, newBraces))) }
                continue
            }
            guard case .word(let head)? = tokens.first else {
                throw DoctorInputError(file: file, line: line, reason: "a Podfile statement starts with a name, not \(Self.describe(tokens.first))")
            }
            let arguments = Array(tokens.dropFirst())
            switch head {
            case "end":
                guard stack.count > 1 else { throw DoctorInputError(file: file, line: line, reason: "`end` without a block to close") }
                let closed = stack.removeLast()
                switch closed {
                case .target(let target):
                    try attach(target, to: &stack, line: line)
                case .method(let name, let pods, _):
                    methods[name] = pods
                case .skipped:
                    break
                }
            case "pod":
                let pod = try self.pod(arguments, line: line)
                try add([pod], to: &stack, line: line)
            case "target", "abstract_target":
                guard case .string(let name)? = arguments.first, arguments.last == .word("do") else {
                    throw DoctorInputError(file: file, line: line, reason: "expected `\(head) 'Name' do`")
                }
                guard case .target = stack.last else { throw DoctorInputError(file: file, line: line, reason: "`\(head)` inside a `def` is not read") }
                stack.append(.target(PodfileTarget(name: name, isAbstract: head == "abstract_target", line: line)))
            case "abstract!":
                guard case .target(var target)? = stack.last, stack.count > 1 else {
                    throw DoctorInputError(file: file, line: line, reason: "`abstract!` belongs inside a target block")
                }
                target.isAbstract = arguments.first != .word("false")
                stack[stack.count - 1] = .target(target)
            case "inherit!":
                guard case .target(var target)? = stack.last, stack.count > 1 else {
                    throw DoctorInputError(file: file, line: line, reason: "`inherit!` belongs inside a target block")
                }
                guard case .symbol(let mode)? = arguments.first, let inheritance = PodfileTarget.Inheritance(rawValue: mode) else {
                    throw DoctorInputError(file: file, line: line, reason: "expected `inherit! :complete`, `:search_paths` or `:none`")
                }
                target.inheritance = inheritance
                stack[stack.count - 1] = .target(target)
            case "platform":
                guard case .symbol(let name)? = arguments.first else {
                    throw DoctorInputError(file: file, line: line, reason: "expected `platform :ios, '13.0'`")
                }
                let version = arguments.dropFirst().compactMap { if case .string(let text) = $0 { text } else { nil } }.first
                podfile.platform = Podfile.Platform(name: name, version: version)
            case "use_frameworks!":
                podfile.usesFrameworks = arguments.first != .word("false")
            case "source":
                guard case .string(let url)? = arguments.first else { throw DoctorInputError(file: file, line: line, reason: "expected `source 'URL'`") }
                podfile.sources.append(url)
            case "def":
                guard case .word(let name)? = arguments.first else { throw DoctorInputError(file: file, line: line, reason: "expected `def name`") }
                stack.append(.method(name: name, pods: [], line: line))
            case _ where Self.hooks.contains(head):
                guard arguments.contains(.word("do")) else { throw DoctorInputError(file: file, line: line, reason: "expected `\(head) do |installer|`") }
                stack.append(.skipped(depth: 1, braces: 0))
            case _ where Self.settings.contains(head):
                continue
            case "ENV":
                continue
            case _ where arguments.first == .punctuation("="):
                continue
            case _ where methods[head] != nil && arguments.isEmpty:
                try add(methods[head] ?? [], to: &stack, line: line)
            case _ where Self.blockKeywords.contains(head):
                throw DoctorInputError(file: file, line: line, reason: "`\(head)` is Ruby control flow: doctor reads a Podfile without running it; declare the pods without the condition")
            default:
                throw DoctorInputError(file: file, line: line, reason: "`\(head)` is not a Podfile statement doctor knows")
            }
        }
        guard stack.count == 1, case .target(let root)? = stack.first else {
            let open: Int = switch stack.last {
            case .target(let target)?: target.line
            case .method(_, _, let line)?: line
            default: 0
            }
            throw DoctorInputError(file: file, line: open, reason: "this block has no `end`")
        }
        podfile.root = root
        return podfile
    }

    /// Adds pods to the innermost target or `def`.
    private func add(_ pods: [PodDeclaration], to stack: inout [Frame], line: Int) throws(DoctorInputError) {
        switch stack.last {
        case .target(var target)?:
            target.pods += pods
            stack[stack.count - 1] = .target(target)
        case .method(let name, let existing, let start)?:
            stack[stack.count - 1] = .method(name: name, pods: existing + pods, line: start)
        default:
            throw DoctorInputError(file: file, line: line, reason: "pods belong inside a target or a `def`")
        }
    }

    /// Nests a closed target in its parent.
    private func attach(_ target: PodfileTarget, to stack: inout [Frame], line: Int) throws(DoctorInputError) {
        guard case .target(var parent)? = stack.last else { throw DoctorInputError(file: file, line: line, reason: "a target closed inside a `def`") }
        parent.children.append(target)
        stack[stack.count - 1] = .target(parent)
    }

    /// `pod 'Name', 'requirement'…, key => value…`.
    private func pod(_ arguments: [RubyToken], line: Int) throws(DoctorInputError) -> PodDeclaration {
        guard case .string(let name)? = arguments.first, !name.isEmpty else {
            throw DoctorInputError(file: file, line: line, reason: "expected `pod 'Name'` with the name in quotes")
        }
        var pod = PodDeclaration(name: name, line: line)
        var options: [String: RubyToken] = [:]
        var lists: [String: [String]] = [:]
        var index = 1
        func expectComma() throws(DoctorInputError) {
            guard index < arguments.count else { return }
            guard arguments[index] == .punctuation(",") else {
                throw DoctorInputError(file: file, line: line, reason: "expected `,` between the arguments of `pod`, found \(Self.describe(arguments[index]))")
            }
            index += 1
        }
        try expectComma()
        while index < arguments.count {
            switch arguments[index] {
            case .string(let requirement) where options.isEmpty && lists.isEmpty:
                pod.requirements.append(requirement)
                index += 1
            case .symbol(let key), .key(let key):
                if case .symbol = arguments[index] {
                    guard index + 1 < arguments.count, arguments[index + 1] == .rocket else {
                        throw DoctorInputError(file: file, line: line, reason: "expected `:\(key) => value`")
                    }
                    index += 2
                } else {
                    index += 1
                }
                guard index < arguments.count else { throw DoctorInputError(file: file, line: line, reason: "`\(key)` has no value") }
                if arguments[index] == .punctuation("[") {
                    var items: [String] = []
                    index += 1
                    while index < arguments.count, arguments[index] != .punctuation("]") {
                        if case .string(let item) = arguments[index] { items.append(item) } else if arguments[index] != .punctuation(",") {
                            throw DoctorInputError(file: file, line: line, reason: "`\(key)` lists strings, found \(Self.describe(arguments[index]))")
                        }
                        index += 1
                    }
                    guard index < arguments.count else { throw DoctorInputError(file: file, line: line, reason: "the list of `\(key)` is not closed") }
                    lists[key] = items
                } else {
                    options[key] = arguments[index]
                }
                index += 1
            default:
                throw DoctorInputError(file: file, line: line, reason: "unexpected \(Self.describe(arguments[index])) in `pod '\(name)'`")
            }
            try expectComma()
        }
        func text(_ key: String) -> String? { if case .string(let value)? = options[key] { value } else { nil } }
        if let path = text("path") {
            pod.source = .path(path)
        } else if let url = text("git") {
            pod.source = .git(url: url, reference: text("tag") ?? text("branch") ?? text("commit"))
        } else if let podspec = text("podspec") {
            pod.source = .podspec(podspec)
        }
        pod.subspecs = lists["subspecs"] ?? []
        pod.supportSpecs = (lists["testspecs"] ?? []) + (lists["appspecs"] ?? [])
        return pod
    }

    /// Logical lines (a statement continued after a `,`, a `\` or inside brackets joins the next
    /// line), each with the line it starts on; blank and comment lines are left out.
    private func logicalLines(_ tokenizer: RubyTokenizer) throws(DoctorInputError) -> [(Int, [RubyToken])] {
        var result: [(Int, [RubyToken])] = []
        var pending: [RubyToken] = []
        var start = 0
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var tokens = try tokenizer.tokens(of: raw, number: number)
            var continued = false
            if tokens.last == .punctuation("\\") {
                tokens.removeLast()
                continued = true
            }
            if pending.isEmpty { start = number }
            pending += tokens
            let open = pending.reduce(0) { depth, token in
                switch token {
                case .punctuation("["), .punctuation("("): depth + 1
                case .punctuation("]"), .punctuation(")"): depth - 1
                default: depth
                }
            }
            if continued || open > 0 || pending.last == .punctuation(",") { continue }
            if !pending.isEmpty { result.append((start, pending)) }
            pending = []
        }
        if !pending.isEmpty { result.append((start, pending)) }
        return result
    }

    /// Blocks a skipped line opens and closes (`do`, keyword blocks, `end`) and its `{` minus `}`.
    private static func blockBalance(_ tokens: [RubyToken]) -> (opened: Int, closed: Int, braces: Int) {
        var opened = 0, closed = 0, braces = 0
        if case .word(let first)? = tokens.first, blockKeywords.contains(first) { opened += 1 }
        for token in tokens {
            switch token {
            case .word("do"): opened += 1
            case .word("end"): closed += 1
            case .punctuation("{"): braces += 1
            case .punctuation("}"): braces -= 1
            default: break
            }
        }
        return (opened, closed, braces)
    }

    private static func describe(_ token: RubyToken?) -> String {
        switch token {
        case .string(let text)?: "the string '\(text)'"
        case .symbol(let name)?: ":\(name)"
        case .key(let name)?: "\(name):"
        case .word(let word)?: "`\(word)`"
        case .number(let number)?: number
        case .rocket?: "`=>`"
        case .punctuation(let character)?: "`\(character)`"
        case nil: "the end of the line"
        }
    }
}
