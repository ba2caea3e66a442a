import Foundation
import Hummingbird

extension Request {
    /// A free-text query parameter read the way HTML forms and `URLSearchParams` write it: `+`
    /// is a space and `%2B` a plus (the query's percent-decoding alone would keep `+` as is, so
    /// a browser's `?query=Bo+P` would look for "bo+p"). Only for typed text: tokens, cursors and
    /// phone numbers keep their `+`.
    func searchText(_ name: String) -> String {
        for pair in (uri.query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.first.flatMap({ $0.removingPercentEncoding }) == name else { continue }
            let value = parts.count > 1 ? parts[1].replacingOccurrences(of: "+", with: " ") : ""
            return value.removingPercentEncoding ?? value
        }
        return ""
    }
}
