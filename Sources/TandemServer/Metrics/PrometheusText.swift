/// Builds the Prometheus text exposition format: `# HELP`, `# TYPE`, then samples.
struct PrometheusText {
    private(set) var output = ""

    mutating func counter(_ name: String, _ help: String, _ value: Int) {
        header(name, help, type: "counter")
        output += "\(name) \(value)\n"
    }

    mutating func gauge(_ name: String, _ help: String, _ value: Int) {
        header(name, help, type: "gauge")
        output += "\(name) \(value)\n"
    }

    mutating func labeledCounter(_ name: String, _ help: String, label: String, _ family: LabeledCounter) {
        header(name, help, type: "counter")
        for (value, count) in family.snapshot() {
            output += "\(name){\(label)=\"\(value.escapedForPrometheusLabel)\"} \(count)\n"
        }
    }

    mutating func histogram(_ name: String, _ help: String, _ histogram: Histogram) {
        header(name, help, type: "histogram")
        let snapshot = histogram.snapshot()
        for (bound, cumulative) in zip(histogram.bounds, snapshot.cumulative) {
            output += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        output += "\(name)_bucket{le=\"+Inf\"} \(snapshot.count)\n"
        output += "\(name)_sum \(snapshot.sum)\n"
        output += "\(name)_count \(snapshot.count)\n"
    }

    private mutating func header(_ name: String, _ help: String, type: String) {
        output += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }
}
