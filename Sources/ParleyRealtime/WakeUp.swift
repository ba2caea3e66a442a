import Foundation
import ParleyCore
import ParleyProtocol

/// What one node tells the others after its commits (the payload of a `pg_notify` on
/// `SharedEventFanout.channel`): for each event it stored, the event itself and the number each
/// recipient got — so the nodes where the recipients are connected hand it on without reading
/// the events table — or, where that would not fit in one notification, only each user's range
/// of numbers (read from the table by whoever needs them). Pure: values in, text out and back.
///
/// The text is lines: the sending node's id, then one line per part —
///     e <type> <created-at ms> <except-session or -> <user>:<seq>,<user>:<seq>… <payload JSON>
///     r <user> <first> <last>
/// (JSON as the protocol's encoder writes it has no line breaks; ids have no spaces, colons or
/// commas). A line that does not read is skipped: a node of another version sends the ranges
/// it knows, and a missed number is read from the table when the next one arrives.
struct WakeUp: Equatable {
    enum Part: Equatable {
        /// One event, stored for several users under their own numbers.
        case event(type: String, payloadJSON: String, createdAtMillis: Int64, exceptSession: SessionID?, numbers: [Numbered])
        /// Numbers `first…last` of `user`'s sequence, to be read from the table.
        case range(UserID, first: Int64, last: Int64)
    }

    struct Numbered: Equatable {
        let user: UserID
        let seq: Int64
    }

    let node: String
    var parts: [Part]

    /// NOTIFY takes payloads under 8000 bytes; a little is left for safety.
    static let limit = 7_900

    /// The parts for a commit's events: one per distinct event (the same payload to several
    /// users is one part), or ranges for an event whose part alone would not fit.
    static func parts(for events: [StoredEvent]) -> [Part] {
        // One append stores one event for all its recipients, side by side in `events`: a group
        // runs while the event stays the same.
        var groups: [(first: StoredEvent, numbers: [Numbered])] = []
        var ranges: [Part] = []
        for event in events {
            guard let payload = event.payloadJSON, Self.isToken(event.type), Self.isToken(event.userID.rawValue),
                  event.exceptSession.map({ Self.isToken($0.rawValue) }) ?? true, !payload.utf8.contains(0x0A)
            else {
                ranges.append(.range(event.userID, first: event.seq, last: event.seq))
                continue
            }
            let number = Numbered(user: event.userID, seq: event.seq)
            if let last = groups.last?.first, last.type == event.type, last.createdAt == event.createdAt,
               last.exceptSession == event.exceptSession, last.payloadJSON == payload {
                groups[groups.count - 1].numbers.append(number)
            } else {
                groups.append((event, [number]))
            }
        }
        var parts: [Part] = []
        for (event, numbers) in groups {
            let part = Part.event(type: event.type, payloadJSON: event.payloadJSON!, createdAtMillis: event.createdAt.storageMillis,
                                  exceptSession: event.exceptSession, numbers: numbers)
            if part.line.utf8.count + 64 <= limit {
                parts.append(part)
            } else {
                parts += numbers.map { .range($0.user, first: $0.seq, last: $0.seq) }
            }
        }
        return parts + ranges
    }

    /// The notifications that carry `parts` from `node`, each under `limit` bytes.
    static func payloads(node: String, parts: [Part]) -> [String] {
        var payloads: [String] = []
        var current = node
        for part in parts {
            let line = part.line
            if current.utf8.count + 1 + line.utf8.count > limit, current.utf8.count > node.utf8.count {
                payloads.append(current)
                current = node
            }
            current += "\n" + line
        }
        if current.utf8.count > node.utf8.count { payloads.append(current) }
        return payloads
    }

    /// Reads a notification; nil when it has no sender line. Over its UTF-8 bytes: every node
    /// reads every other node's wake-ups, and splitting them as `Character`s cost a node a tenth
    /// of its time under load.
    static func parse(_ payload: String) -> WakeUp? {
        var payload = payload
        return payload.withUTF8 { bytes in
            var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true)[...]
            guard let node = lines.popFirst(), !node.isEmpty else { return nil }
            return WakeUp(node: String(decoding: node, as: UTF8.self), parts: lines.compactMap(Part.init(line:)))
        }
    }

    /// Only characters that never separate the fields of a line.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && !text.utf8.contains { $0 == 0x20 || $0 == 0x3A || $0 == 0x2C || $0 == 0x0A || $0 == 0x0D }
    }
}

extension WakeUp.Part {
    var line: String {
        switch self {
        case .event(let type, let payloadJSON, let createdAtMillis, let exceptSession, let numbers):
            let list = numbers.map { "\($0.user.rawValue):\($0.seq)" }.joined(separator: ",")
            return "e \(type) \(createdAtMillis) \(exceptSession?.rawValue ?? "-") \(list) \(payloadJSON)"
        case .range(let user, let first, let last):
            return "r \(user.rawValue) \(first) \(last)"
        }
    }

    /// A line of `parse`, as UTF-8 bytes.
    init?(line: Slice<UnsafeBufferPointer<UInt8>>) {
        let fields = line.split(separator: 0x20, maxSplits: 5, omittingEmptySubsequences: false)
        func text(_ field: Slice<UnsafeBufferPointer<UInt8>>) -> String { String(decoding: field, as: UTF8.self) }
        guard fields.first?.count == 1 else { return nil }
        switch fields[0].first {
        case UInt8(ascii: "r"):
            guard fields.count == 4, !fields[1].isEmpty, let first = Self.integer(fields[2]), let last = Self.integer(fields[3]), first <= last
            else { return nil }
            self = .range(UserID(rawValue: text(fields[1])), first: first, last: last)
        case UInt8(ascii: "e"):
            guard fields.count == 6, !fields[1].isEmpty, let millis = Self.integer(fields[2]), !fields[3].isEmpty else { return nil }
            var numbers: [WakeUp.Numbered] = []
            for pair in fields[4].split(separator: 0x2C) {
                let halves = pair.split(separator: 0x3A)
                guard halves.count == 2, !halves[0].isEmpty, let seq = Self.integer(halves[1]) else { return nil }
                numbers.append(WakeUp.Numbered(user: UserID(rawValue: text(halves[0])), seq: seq))
            }
            guard !numbers.isEmpty else { return nil }
            let except = fields[3].elementsEqual([UInt8(ascii: "-")]) ? nil : SessionID(rawValue: text(fields[3]))
            self = .event(type: text(fields[1]), payloadJSON: text(fields[5]), createdAtMillis: millis, exceptSession: except,
                          numbers: numbers)
        default:
            return nil
        }
    }

    /// A decimal integer (an optional `-`, then digits), as `Int64(_:)` reads one; nil otherwise.
    private static func integer(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        var rest = digits[...]
        let negative = rest.first == UInt8(ascii: "-")
        if negative || rest.first == UInt8(ascii: "+") { rest = rest.dropFirst() }
        guard !rest.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in rest {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (shifted, over1) = value.multipliedReportingOverflow(by: 10)
            let (added, over2) = negative ? shifted.subtractingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                : shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !over1, !over2 else { return nil }
            value = added
        }
        return value
    }

    /// The users and numbers this part announces, for those who must read them.
    var ranges: [(UserID, first: Int64, last: Int64)] {
        switch self {
        case .event(_, _, _, _, let numbers): numbers.map { ($0.user, $0.seq, $0.seq) }
        case .range(let user, let first, let last): [(user, first, last)]
        }
    }
}
