import TandemProtocol

/// A `Package.resolved` (formats 1, 2 and 3, as SwiftPM and Xcode write them): the packages SwiftPM
/// resolved, each with where it comes from and the version it is pinned at.
public struct PackageResolved: Sendable, Equatable {
    /// One resolved package.
    public struct Pin: Sendable, Equatable {
        /// The package identity (`alamofire`; format 1 has the package's name instead).
        public var identity: String
        /// Its repository URL or local path.
        public var location: String
        /// The version pinned, nil when pinned to a branch or a revision.
        public var version: String?
        /// The revision pinned, when there is one.
        public var revision: String?

        /// Creates a pin.
        public init(identity: String, location: String, version: String?, revision: String? = nil) {
            self.identity = identity
            self.location = location
            self.version = version
            self.revision = revision
        }
    }

    /// The format version (1, 2 or 3).
    public var format: Int
    /// The pins, in the file's order.
    public var pins: [Pin]

    /// Creates a resolution.
    public init(format: Int = 2, pins: [Pin]) {
        self.format = format
        self.pins = pins
    }

    /// Reads the text of a `Package.resolved`.
    /// - Throws: `DoctorInputError` on invalid JSON (with its line), an unknown format, or a pin without
    ///   its identity and location.
    public init(parsing text: String, file: String = "Package.resolved") throws(DoctorInputError) {
        let value = try DoctorInputError.parseJSON(text, file: file)
        guard case .object(let root) = value, case .number(let number)? = root["version"], let format = Int(exactly: number) else {
            throw DoctorInputError(file: file, line: 1, reason: "a Package.resolved is a JSON object with a numeric \"version\"")
        }
        let items: JSONValue?
        switch format {
        case 1:
            guard case .object(let object)? = root["object"] else {
                throw DoctorInputError(file: file, line: 1, reason: "a format 1 Package.resolved keeps its pins under \"object\"")
            }
            items = object["pins"]
        case 2, 3:
            items = root["pins"]
        default:
            throw DoctorInputError(file: file, line: 1, reason: "Package.resolved format \(format) is not one the doctor reads (1, 2 or 3)")
        }
        guard case .array(let list)? = items else { throw DoctorInputError(file: file, line: 1, reason: "\"pins\" must be an array") }
        var pins: [Pin] = []
        for (index, item) in list.enumerated() {
            let identityKey = format == 1 ? "package" : "identity"
            let locationKey = format == 1 ? "repositoryURL" : "location"
            guard case .object(let pin) = item, case .string(let identity)? = pin[identityKey], case .string(let location)? = pin[locationKey] else {
                throw DoctorInputError(file: file, line: Self.line(ofPin: index, in: text),
                                       reason: "pin \(index + 1) needs \"\(identityKey)\" and \"\(locationKey)\"")
            }
            var version: String?
            var revision: String?
            if case .object(let state)? = pin["state"] {
                if case .string(let text)? = state["version"] { version = text }
                if case .string(let text)? = state["revision"] { revision = text }
            }
            pins.append(Pin(identity: identity, location: location, version: version, revision: revision))
        }
        self.format = format
        self.pins = pins
    }

    /// The line where the `index`th object of the `"pins"` array opens.
    private static func line(ofPin index: Int, in text: String) -> Int {
        let bytes = Array(text.utf8)
        guard let key = bytes.firstRange(of: Array("\"pins\"".utf8)) else { return 1 }
        var offset = key.lowerBound
        while offset < bytes.count && bytes[offset] != UInt8(ascii: "[") { offset += 1 }
        var depth = 0
        var seen = -1
        var inString = false
        var escaped = false
        while offset < bytes.count {
            let byte = bytes[offset]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                if depth == 1 { seen += 1 }
                if depth == 1 && seen == index { return DoctorInputError.line(ofByte: offset, in: text) }
                depth += 1
            } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                depth -= 1
                if depth == 0 { break }
            } else if depth == 1 && byte > 0x20 && byte != UInt8(ascii: ",") {
                seen += 1
                if seen == index { return DoctorInputError.line(ofByte: offset, in: text) }
                while offset + 1 < bytes.count && ![UInt8(ascii: ","), UInt8(ascii: "]")].contains(bytes[offset + 1]) { offset += 1 }
            }
            offset += 1
        }
        return 1
    }
}
