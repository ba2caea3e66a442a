import Hummingbird
import ParleyCore

extension Request {
    /// The `limit` query parameter of a paged list: `value` when absent, else a whole number
    /// from 1 to `max` (`invalid_field` otherwise).
    func pageLimit(default value: Int, max: Int) throws -> Int {
        guard let text = uri.queryParameters["limit"] else { return value }
        guard let limit = Int(String(text)), (1...max).contains(limit) else {
            throw ParleyError.invalidField("limit", "a whole number from 1 to \(max)")
        }
        return limit
    }
}
