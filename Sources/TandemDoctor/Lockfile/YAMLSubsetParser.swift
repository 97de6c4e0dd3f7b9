/// Reads the YAML subset CocoaPods writes (`Podfile.lock`): block mappings (`key: value`, `key:` over a
/// deeper block), block sequences (`- item`, `- item:` over a deeper block), plain and quoted scalars,
/// full-line comments. Indentation is spaces. Anything else — flow collections, anchors, tags,
/// multi-line scalars, tabs — is a `DoctorInputError` naming its line.
struct YAMLSubsetParser {
    private struct Line {
        var number: Int
        var indent: Int
        var content: Substring
    }

    private let lines: [Line]
    private let file: String

    init(text: String, file: String) throws(DoctorInputError) {
        self.file = file
        var lines: [Line] = []
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var line = raw
            if line.last == "\r" { line = line.dropLast() }
            let indent = line.prefix { $0 == " " }.count
            let content = line.dropFirst(indent)
            if content.isEmpty || content.first == "#" { continue }
            if content.first == "\t" { throw DoctorInputError(file: file, line: number, reason: "indentation must be spaces, not a tab") }
            if let first = content.first, "{[&*!|>%@`".contains(first) {
                throw DoctorInputError(file: file, line: number, reason: "`\(first)` starts YAML that Podfile.lock does not use (flow collections, anchors, tags, block scalars)")
            }
            lines.append(Line(number: number, indent: indent, content: content))
        }
        self.lines = lines
    }

    /// The document: a mapping (empty for an empty file).
    func parse() throws(DoctorInputError) -> YAMLNode {
        var index = 0
        guard !lines.isEmpty else { return .mapping([], line: 1) }
        guard lines[0].indent == 0 else { throw DoctorInputError(file: file, line: lines[0].number, reason: "the document must start at the left margin") }
        let node = try block(at: 0, from: &index)
        if index < lines.count { throw DoctorInputError(file: file, line: lines[index].number, reason: "this line is indented less than the block it follows") }
        return node
    }

    /// The block of lines at exactly `indent`, starting at `index`.
    private func block(at indent: Int, from index: inout Int) throws(DoctorInputError) -> YAMLNode {
        let first = lines[index]
        if first.content == "-" || first.content.hasPrefix("- ") {
            var items: [YAMLNode] = []
            while index < lines.count, lines[index].indent == indent, lines[index].content == "-" || lines[index].content.hasPrefix("- ") {
                let line = lines[index]
                let item = line.content.dropFirst(2)
                index += 1
                if item.isEmpty {
                    items.append(try nested(deeperThan: indent, from: &index, line: line.number))
                } else if let (key, value) = try pair(item, line: line.number) {
                    // `- key:` over a deeper block (a pod with its dependencies), or `- key: value`.
                    let child: YAMLNode
                    if let value { child = .scalar(value, line: line.number) } else { child = try nested(deeperThan: indent, from: &index, line: line.number) }
                    items.append(.mapping([(key, child)], line: line.number))
                } else {
                    items.append(.scalar(try scalar(item, line: line.number), line: line.number))
                }
            }
            try checkEnd(of: indent, at: index)
            return .sequence(items, line: first.number)
        }
        var members: [(key: String, value: YAMLNode)] = []
        while index < lines.count, lines[index].indent == indent {
            let line = lines[index]
            guard !(line.content == "-" || line.content.hasPrefix("- ")) else {
                throw DoctorInputError(file: file, line: line.number, reason: "a list item among the keys of a mapping")
            }
            guard let (key, value) = try pair(line.content, line: line.number) else {
                throw DoctorInputError(file: file, line: line.number, reason: "expected `key: value` or `key:`")
            }
            index += 1
            if members.contains(where: { $0.key == key }) { throw DoctorInputError(file: file, line: line.number, reason: "the key `\(key)` appears twice") }
            let child: YAMLNode
            if let value { child = .scalar(value, line: line.number) } else { child = try nested(deeperThan: indent, from: &index, line: line.number) }
            members.append((key, child))
        }
        try checkEnd(of: indent, at: index)
        return .mapping(members, line: first.number)
    }

    /// The deeper block after `key:` or `-` (an empty scalar when none follows).
    private func nested(deeperThan indent: Int, from index: inout Int, line: Int) throws(DoctorInputError) -> YAMLNode {
        guard index < lines.count, lines[index].indent > indent else { return .scalar("", line: line) }
        return try block(at: lines[index].indent, from: &index)
    }

    /// A block ends at a line indented less; one indented more but not opened by a `key:` is an error.
    private func checkEnd(of indent: Int, at index: Int) throws(DoctorInputError) {
        if index < lines.count, lines[index].indent > indent {
            throw DoctorInputError(file: file, line: lines[index].number, reason: "this line is indented more than the block it belongs to")
        }
    }

    /// `key: value` or `key:` (value nil); nil when the text is not a pair.
    private func pair(_ text: Substring, line: Int) throws(DoctorInputError) -> (String, String?)? {
        var key: String
        var rest: Substring
        if let quote = text.first, quote == "\"" || quote == "'" {
            guard let (quoted, after) = try quotedPrefix(text, line: line) else { return nil }
            guard after.first == ":" else { return nil }
            key = quoted
            rest = after.dropFirst()
        } else {
            guard let colon = Self.keyColon(in: text) else { return nil }
            key = String(text[..<colon]).trimmingTrailingSpaces()
            rest = text[text.index(after: colon)...]
        }
        guard !key.isEmpty else { return nil }
        let value = rest.drop { $0 == " " }
        if value.isEmpty || value.first == "#" { return (key, nil) }
        return (key, try scalar(value, line: line))
    }

    /// The `:` that ends a plain key: followed by a space or the end of the line.
    private static func keyColon(in text: Substring) -> Substring.Index? {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == ":" {
                let next = text.index(after: index)
                if next == text.endIndex || text[next] == " " { return index }
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// A plain or quoted scalar (a trailing ` #` comment dropped from a plain one).
    private func scalar(_ text: Substring, line: Int) throws(DoctorInputError) -> String {
        if let quote = text.first, quote == "\"" || quote == "'" {
            guard let (value, after) = try quotedPrefix(text, line: line) else {
                throw DoctorInputError(file: file, line: line, reason: "a quoted value is not closed")
            }
            let tail = after.drop { $0 == " " }
            guard tail.isEmpty || tail.first == "#" else { throw DoctorInputError(file: file, line: line, reason: "text after a quoted value") }
            return value
        }
        if let first = text.first, "{[&*!|>%@`".contains(first) {
            throw DoctorInputError(file: file, line: line, reason: "`\(first)` starts YAML that Podfile.lock does not use (flow collections, anchors, tags, block scalars)")
        }
        var value = text
        var index = value.startIndex
        while index < value.endIndex {
            let next = value.index(after: index)
            if value[index] == " ", next < value.endIndex, value[next] == "#" {
                value = value[..<index]
                break
            }
            index = next
        }
        return String(value).trimmingTrailingSpaces()
    }

    /// The quoted string `text` starts with, and what follows it; nil when the quote is not closed.
    private func quotedPrefix(_ text: Substring, line: Int) throws(DoctorInputError) -> (String, Substring)? {
        guard let quote = text.first else { return nil }
        var value = ""
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if quote == "'", character == "'" {
                let next = text.index(after: index)
                if next < text.endIndex, text[next] == "'" {
                    value.append("'")
                    index = text.index(after: next)
                    continue
                }
                return (value, text[next...])
            }
            if quote == "\"", character == "\\" {
                let next = text.index(after: index)
                guard next < text.endIndex else { return nil }
                switch text[next] {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "\"", "\\", "/": value.append(text[next])
                default: throw DoctorInputError(file: file, line: line, reason: "the escape \\\(text[next]) is not one Podfile.lock uses")
                }
                index = text.index(after: next)
                continue
            }
            if quote == "\"", character == "\"" { return (value, text[text.index(after: index)...]) }
            value.append(character)
            index = text.index(after: index)
        }
        return nil
    }
}

extension String {
    /// The string without trailing spaces.
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
