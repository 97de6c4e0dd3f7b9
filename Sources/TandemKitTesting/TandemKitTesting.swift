import TandemKit

/// TandemKitTesting: test helpers for code built on TandemKit, starting with `TestStore`.
public enum TandemKitTesting {}
