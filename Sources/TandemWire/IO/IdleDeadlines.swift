/// Something whose idle deadline an `IdleDeadlines` set tracks; it stores its own slot so removal is O(1).
protocol IdleTracked: AnyObject {
    /// The monotonic time in nanoseconds at which the element counts as idle.
    var idleDeadline: UInt64 { get set }
    /// The element's index in its set, or -1 when it is not in one.
    var idleSlot: Int { get set }
}

/// The connections of one loop whose idle timer is armed. Arming, re-arming and disarming are O(1) stores;
/// the loop sweeps the set on a coarse tick instead of keeping one timer per connection, so re-arming on every
/// received message costs no allocation and no heap operation.
struct IdleDeadlines<Element: IdleTracked> {
    private(set) var members: [Element] = []

    var isEmpty: Bool { members.isEmpty }
    var count: Int { members.count }

    /// Sets (or moves) the element's deadline.
    mutating func arm(_ element: Element, deadline: UInt64) {
        element.idleDeadline = deadline
        if element.idleSlot < 0 {
            element.idleSlot = members.count
            members.append(element)
        }
    }

    /// Removes the element's deadline, if it has one.
    mutating func disarm(_ element: Element) {
        let slot = element.idleSlot
        guard slot >= 0 else { return }
        let last = members.removeLast()
        if slot < members.count {
            members[slot] = last
            last.idleSlot = slot
        }
        element.idleSlot = -1
    }

    /// Removes and returns every element whose deadline is at or before `now`, earliest deadline first.
    mutating func removeExpired(now: UInt64) -> [Element] {
        var expired: [Element] = []
        var index = 0
        while index < members.count {
            let element = members[index]
            if element.idleDeadline <= now {
                expired.append(element)
                disarm(element)  // moves the last member into `index`, which is examined next
            } else {
                index += 1
            }
        }
        expired.sort { $0.idleDeadline < $1.idleDeadline }
        return expired
    }
}
