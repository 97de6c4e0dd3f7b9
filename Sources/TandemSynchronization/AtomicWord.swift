/// A value that fits one 64-bit atomic word: integers up to 64 bits, `Bool`, and raw pointers.
public protocol AtomicWord {
    /// The value from the word's bits.
    init(atomicBits: Int64)
    /// The word's bits for the value.
    var atomicBits: Int64 { get }
}

extension Int: AtomicWord {
    @inlinable public init(atomicBits: Int64) { self = Int(truncatingIfNeeded: atomicBits) }
    @inlinable public var atomicBits: Int64 { Int64(self) }
}

extension Int64: AtomicWord {
    @inlinable public init(atomicBits: Int64) { self = atomicBits }
    @inlinable public var atomicBits: Int64 { self }
}

extension Int32: AtomicWord {
    @inlinable public init(atomicBits: Int64) { self = Int32(truncatingIfNeeded: atomicBits) }
    @inlinable public var atomicBits: Int64 { Int64(self) }
}

extension UInt: AtomicWord {
    @inlinable public init(atomicBits: Int64) { self = UInt(truncatingIfNeeded: atomicBits) }
    @inlinable public var atomicBits: Int64 { Int64(truncatingIfNeeded: self) }
}

extension UInt64: AtomicWord {
    @inlinable public init(atomicBits: Int64) { self = UInt64(bitPattern: atomicBits) }
    @inlinable public var atomicBits: Int64 { Int64(bitPattern: self) }
}

extension UInt8: AtomicWord {
    @inlinable public init(atomicBits: Int64) { self = UInt8(truncatingIfNeeded: atomicBits) }
    @inlinable public var atomicBits: Int64 { Int64(self) }
}

extension Bool: AtomicWord {
    @inlinable public init(atomicBits: Int64) { self = atomicBits != 0 }
    @inlinable public var atomicBits: Int64 { self ? 1 : 0 }
}

extension Optional: AtomicWord where Wrapped == UnsafeMutableRawPointer {
    @inlinable public init(atomicBits: Int64) { self = UnsafeMutableRawPointer(bitPattern: Int(truncatingIfNeeded: atomicBits)) }
    @inlinable public var atomicBits: Int64 { Int64(Int(bitPattern: self)) }
}
