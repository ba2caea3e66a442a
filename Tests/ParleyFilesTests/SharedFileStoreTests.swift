import Foundation
import ParleyFiles
import Testing

/// Nodes that share one store root (files.directory on a shared file system): what one stores
/// the other reads, and a node that starts does not sweep away another's upload in progress.
@Suite struct SharedFileStoreTests {
    static func root() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-files-\(UUID().uuidString)").path
    }

    @Test func whatOneStoreWritesAnotherOnTheSameRootReads() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let one = try FileStore(root: root), two = try FileStore(root: root)
        let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let hash = try one.put(bytes)
        #expect(two.read(hash) == bytes)
        #expect(two.size(of: hash) == bytes.count)

        // An upload staged and adopted by one is there for the other, under the same name.
        let staged = one.newStagingPath()
        let more = Array("not the same bytes".utf8)
        #expect(FileManager.default.createFile(atPath: staged, contents: Data(more)))
        try one.adopt(StagedFile(path: staged, size: more.count, hash: ContentHash(of: more)))
        #expect(two.read(ContentHash(of: more)) == more)
        // The same bytes from the other: one file, the second staged copy dropped.
        let again = two.newStagingPath()
        #expect(FileManager.default.createFile(atPath: again, contents: Data(more)))
        try two.adopt(StagedFile(path: again, size: more.count, hash: ContentHash(of: more)))
        #expect(!FileManager.default.fileExists(atPath: again))
        #expect(one.read(ContentHash(of: more)) == more)
    }

    /// A store that opens sweeps staged files a stopped process left (untouched for an hour),
    /// not one another node is writing now.
    @Test func startingDoesNotSweepAnotherNodesUploadInProgress() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let one = try FileStore(root: root)
        let arriving = one.newStagingPath(), abandoned = one.newStagingPath()
        #expect(FileManager.default.createFile(atPath: arriving, contents: Data([1, 2, 3])))
        #expect(FileManager.default.createFile(atPath: abandoned, contents: Data([4, 5, 6])))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-2 * 3600)], ofItemAtPath: abandoned)

        _ = try FileStore(root: root)   // another node starts on the same root
        #expect(FileManager.default.fileExists(atPath: arriving), "an upload arriving on the other node stays")
        #expect(!FileManager.default.fileExists(atPath: abandoned), "a two-hour-old leftover goes")
    }

    /// `put` writes in the staging folder and renames: it leaves nothing but the stored file
    /// behind, and what a crash between the two would leave is in the folder the sweep covers.
    @Test func putLeavesOnlyTheStoredFile() throws {
        let root = Self.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try FileStore(root: root)
        let hash = try store.put(Array("an avatar".utf8))
        let everything = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
        let files = everything.filter { path in
            var directory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &directory) && !directory.boolValue
        }
        #expect(files.map { root + "/" + $0 } == [store.path(for: hash)])
    }
}
