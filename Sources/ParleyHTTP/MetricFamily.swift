/// One metric family of the Prometheus text format: a name, its help and type, its samples.
public struct MetricFamily: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Only goes up (resets when the process restarts); names end in `_total` by convention.
        case counter
        /// Goes up and down.
        case gauge
    }

    public struct Sample: Sendable, Equatable {
        /// Label pairs in the order they are written.
        public var labels: [Label]
        public var value: MetricValue

        public init(_ labels: [Label] = [], _ value: MetricValue) {
            self.labels = labels
            self.value = value
        }
    }

    public struct Label: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public var name: String
    public var help: String
    public var kind: Kind
    public var samples: [Sample]

    public init(_ name: String, help: String, kind: Kind, samples: [Sample]) {
        self.name = name
        self.help = help
        self.kind = kind
        self.samples = samples
    }

    /// A family of one unlabelled sample.
    public init(_ name: String, help: String, kind: Kind, value: MetricValue) {
        self.init(name, help: help, kind: kind, samples: [Sample([], value)])
    }
}

/// A sample's value: integers stay exact (a `UInt64` counter past 2^53 would not survive a
/// `Double`), reals use the format's spelling of infinities and NaN.
public enum MetricValue: Sendable, Equatable {
    case integer(Int64)
    case unsigned(UInt64)
    case real(Double)

    public static func count(_ value: Int) -> MetricValue { .integer(Int64(value)) }
}
