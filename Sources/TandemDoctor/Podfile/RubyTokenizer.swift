/// One token of a Podfile line: the pieces of the Ruby DSL subset Podfiles are written in.
enum RubyToken: Sendable, Equatable {
    /// A quoted string (`'…'` or `"…"`, escapes resolved; `#{}` interpolation is kept as text).
    case string(String)
    /// `:name`.
    case symbol(String)
    /// `name:` (a hash key in the newer syntax).
    case key(String)
    /// A bare word: a method name (`pod`, `use_frameworks!`), `do`, `end`, `true`, a constant.
    case word(String)
    /// A number.
    case number(String)
    /// `=>`.
    case rocket
    /// One of `, [ ] ( ) { } | = .` and other punctuation.
    case punctuation(Character)
}

/// Splits one Podfile line into tokens, dropping a trailing `#` comment.
struct RubyTokenizer {
    let file: String

    /// The tokens of `line` (1-based `number`, for errors).
    /// - Throws: `DoctorInputError` for an unterminated string.
    func tokens(of line: Substring, number: Int) throws(DoctorInputError) -> [RubyToken] {
        var tokens: [RubyToken] = []
        var index = line.startIndex
        func isWordCharacter(_ character: Character) -> Bool { character.isLetter || character.isNumber || character == "_" }
        while index < line.endIndex {
            let character = line[index]
            if character == " " || character == "\t" || character == "\r" {
                index = line.index(after: index)
            } else if character == "#" {
                break
            } else if character == "'" || character == "\"" {
                var text = ""
                var cursor = line.index(after: index)
                var closed = false
                while cursor < line.endIndex {
                    let next = line[cursor]
                    if next == "\\", line.index(after: cursor) < line.endIndex {
                        cursor = line.index(after: cursor)
                        text.append(line[cursor])
                    } else if next == character {
                        closed = true
                        break
                    } else {
                        text.append(next)
                    }
                    cursor = line.index(after: cursor)
                }
                guard closed else { throw DoctorInputError(file: file, line: number, reason: "a string opened with \(character) is not closed on this line") }
                tokens.append(.string(text))
                index = line.index(after: cursor)
            } else if character == ":", line.index(after: index) < line.endIndex, isWordCharacter(line[line.index(after: index)]) {
                var cursor = line.index(after: index)
                while cursor < line.endIndex, isWordCharacter(line[cursor]) { cursor = line.index(after: cursor) }
                tokens.append(.symbol(String(line[line.index(after: index)..<cursor])))
                index = cursor
            } else if character == "=", line.index(after: index) < line.endIndex, line[line.index(after: index)] == ">" {
                tokens.append(.rocket)
                index = line.index(index, offsetBy: 2)
            } else if character.isNumber {
                var cursor = index
                while cursor < line.endIndex, line[cursor].isNumber || line[cursor] == "." { cursor = line.index(after: cursor) }
                tokens.append(.number(String(line[index..<cursor])))
                index = cursor
            } else if isWordCharacter(character) {
                var cursor = index
                while cursor < line.endIndex, isWordCharacter(line[cursor]) { cursor = line.index(after: cursor) }
                if cursor < line.endIndex, line[cursor] == "!" || line[cursor] == "?" { cursor = line.index(after: cursor) }
                let word = String(line[index..<cursor])
                // `path:` is a key, `::` is a constant path and stays a word.
                if cursor < line.endIndex, line[cursor] == ":", line.index(after: cursor) == line.endIndex || line[line.index(after: cursor)] != ":" {
                    tokens.append(.key(word))
                    index = line.index(after: cursor)
                } else {
                    tokens.append(.word(word))
                    index = cursor
                }
            } else {
                tokens.append(.punctuation(character))
                index = line.index(after: index)
            }
        }
        return tokens
    }
}
