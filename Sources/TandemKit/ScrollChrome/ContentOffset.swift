#if canImport(CoreGraphics)
import CoreGraphics
#endif

/// A scroll position, coded as `{"x": …, "y": …}` on every platform: the shape the articles' page
/// state and the browser page use. (`CGPoint` itself is `Codable` as `[x, y]`, which other
/// participants would not read.)
public struct ContentOffset: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The horizontal offset, points.
    public var x: Double
    /// The vertical offset, points.
    public var y: Double

    /// The origin.
    public static let zero = ContentOffset(x: 0, y: 0)

    /// Creates an offset.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// Whether both coordinates are within `tolerance` of `other`'s.
    public func isClose(to other: ContentOffset, tolerance: Double) -> Bool {
        abs(x - other.x) <= tolerance && abs(y - other.y) <= tolerance
    }

    /// E.g. `(0.0, 120.5)`.
    public var description: String { "(\(x), \(y))" }

    #if canImport(CoreGraphics)
    /// The offset of a scroll view's `contentOffset`.
    public init(_ point: CGPoint) {
        self.init(x: Double(point.x), y: Double(point.y))
    }

    /// The offset as a point, to set a scroll view's `contentOffset`.
    public var cgPoint: CGPoint { CGPoint(x: x, y: y) }
    #endif
}
