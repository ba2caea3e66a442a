import Crypto
import Foundation

/// A file written in full to the store's staging folder, with its size and content hash, waiting to
/// be adopted under its hash (or discarded).
public struct StagedFile: Sendable {
    public let path: String
    public let size: Int
    public let hash: ContentHash

    public init(path: String, size: Int, hash: ContentHash) {
        self.path = path
        self.size = size
        self.hash = hash
    }
}

/// SHA-256 over bytes that arrive in pieces: an upload is hashed while it streams to disk.
public struct ContentHasher: Sendable {
    private var sha = SHA256()

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) { sha.update(bufferPointer: bytes) }

    public func finalize() -> ContentHash { ContentHash(digest: sha.finalize()) }
}

extension FileStore {
    /// Uploads are written here while they arrive: inside the store's root, so adopting one is a
    /// rename on the same file system, and a crash leaves nothing but this folder to sweep.
    public var stagingDirectory: String { root + "/.staging" }

    /// A fresh path in the staging folder (nothing is created).
    public func newStagingPath() -> String { stagingDirectory + "/" + UUID().uuidString }

    /// Moves a staged file into place under its hash; when those bytes are already stored the
    /// staged copy is dropped.
    public func adopt(_ staged: StagedFile) throws {
        let path = self.path(for: staged.hash)
        if FileManager.default.fileExists(atPath: path) { return discard(staged) }
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if rename(staged.path, path) != 0 {
            discard(staged)
            if !FileManager.default.fileExists(atPath: path) { throw CocoaError(.fileWriteUnknown) }
        }
    }

    public func discard(_ staged: StagedFile) { discard(stagedAt: staged.path) }

    public func discard(stagedAt path: String) { unlink(path) }

    /// Staged files left by a process that stopped mid-upload: those untouched for `age` seconds.
    /// A fresh one may be another node's upload arriving now (nodes that share the root share
    /// this folder), so it stays.
    func sweepStaging(olderThan age: TimeInterval = 3600) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: stagingDirectory) else { return }
        let cutoff = Date().addingTimeInterval(-age)
        for name in names {
            let path = stagingDirectory + "/" + name
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            if let modified, modified < cutoff { unlink(path) }
        }
    }
}
