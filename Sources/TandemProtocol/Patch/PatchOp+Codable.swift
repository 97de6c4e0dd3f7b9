extension PatchOp: Codable {
    /// Decodes the op from its wire form (`{"op": "set", "path": …, "value": …}`), with the wire's rules.
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        do {
            try self.init(json: json)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "\(error)"))
        }
    }

    /// Encodes the op in its wire form.
    public func encode(to encoder: any Encoder) throws {
        try jsonValue.encode(to: encoder)
    }
}
