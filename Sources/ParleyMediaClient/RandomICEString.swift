/// Random ICE credentials (RFC 8445 §5.3: ufrag ≥ 4 and password ≥ 22 characters from the
/// `ice-char` set of RFC 8839 §5.4).
enum RandomICEString {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `length` characters drawn from the system random source.
    static func make(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
    }
}
