/// Which node of a Redis Cluster serves each slot, as `CLUSTER SLOTS` tells it (the primaries only).
package struct RedisSlotMap: Sendable, Equatable {
    /// A range of slots and the primary that serves it.
    package struct Range: Sendable, Equatable {
        /// The slots, first to last.
        package var slots: ClosedRange<Int>
        /// The primary serving them.
        package var endpoint: RedisEndpoint
    }

    /// The ranges, sorted by their first slot.
    package private(set) var ranges: [Range]

    /// A map of `ranges` (in any order).
    package init(ranges: [Range]) {
        self.ranges = ranges.sorted { $0.slots.lowerBound < $1.slots.lowerBound }
    }

    /// Reads a `CLUSTER SLOTS` reply: per range its first and last slot, then the primary as
    /// `[host, port, id, …]`, then its replicas (ignored). A primary announced without a host (an empty
    /// string or `?`) is reached at `fallbackHost`, the host the reply came from.
    /// - Throws: `RedisError.unexpectedReply` for any other shape.
    package init(clusterSlots reply: RESPValue, fallbackHost: String) throws(RedisError) {
        func bad() -> RedisError { .unexpectedReply(command: "CLUSTER SLOTS", reply: "\(reply)") }
        guard let entries = reply.array else { throw bad() }
        var ranges: [Range] = []
        for entry in entries {
            guard let fields = entry.array, fields.count >= 3, let first = fields[0].integer, let last = fields[1].integer,
                  first >= 0, first <= last, last < Int64(RedisHashSlot.count),
                  let primary = fields[2].array, primary.count >= 2, let port = primary[1].integer, port > 0, port < 65_536 else {
                throw bad()
            }
            let announced = primary[0].string ?? ""
            let host = announced.isEmpty || announced == "?" ? fallbackHost : announced
            ranges.append(Range(slots: Int(first)...Int(last), endpoint: RedisEndpoint(host: host, port: Int(port))))
        }
        self.init(ranges: ranges)
    }

    /// The primary serving `slot`, or nil when no range covers it (the cluster is not fully set up).
    package func endpoint(for slot: Int) -> RedisEndpoint? {
        var low = 0, high = ranges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = ranges[middle]
            if slot < range.slots.lowerBound { high = middle - 1 } else if slot > range.slots.upperBound { low = middle + 1 } else { return range.endpoint }
        }
        return nil
    }

    /// The primaries, each once, in slot order.
    package var endpoints: [RedisEndpoint] {
        var seen: Set<RedisEndpoint> = []
        return ranges.map(\.endpoint).filter { seen.insert($0).inserted }
    }

    /// The map to route by once a node answered `MOVED slot endpoint` and this map was read since: this
    /// map for every other slot, the redirect for `slot`, which is the newest word on it (a node the reshard
    /// has not reached yet still names the old owner).
    package func following(_ slot: Int, movedTo endpoint: RedisEndpoint) -> RedisSlotMap {
        self.endpoint(for: slot) == endpoint ? self : moving(slot, to: endpoint)
    }

    /// The map with `slot` moved to `endpoint` (a `MOVED` reply says so before a full refresh).
    package func moving(_ slot: Int, to endpoint: RedisEndpoint) -> RedisSlotMap {
        var ranges: [Range] = []
        for range in self.ranges {
            guard range.slots.contains(slot) else {
                ranges.append(range)
                continue
            }
            if range.slots.lowerBound < slot { ranges.append(Range(slots: range.slots.lowerBound...(slot - 1), endpoint: range.endpoint)) }
            if slot < range.slots.upperBound { ranges.append(Range(slots: (slot + 1)...range.slots.upperBound, endpoint: range.endpoint)) }
        }
        ranges.append(Range(slots: slot...slot, endpoint: endpoint))
        return RedisSlotMap(ranges: ranges)
    }
}
