import Foundation
import ParleyFiles
import Testing

/// A node that keeps running sweeps its staging folder as uploads go on, not only when it starts:
/// another node sharing the root may have stopped mid-upload long after this one started.
@Suite struct StagingSweepTests {
    @Test func leftoversAreSweptOncePerIntervalAsUploadsStart() throws {
        let root = SharedFileStoreTests.root()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try FileStore(root: root)
        let arriving = store.newStagingPath(), abandoned = store.newStagingPath()
        #expect(FileManager.default.createFile(atPath: arriving, contents: Data([1, 2, 3])))
        #expect(FileManager.default.createFile(atPath: abandoned, contents: Data([4, 5, 6])))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-2 * 3600)], ofItemAtPath: abandoned)

        store.sweepStagingIfDue()   // the store swept as it opened: not due yet
        #expect(FileManager.default.fileExists(atPath: abandoned))

        store.sweepStagingIfDue(every: 600, now: Date().addingTimeInterval(601))
        #expect(!FileManager.default.fileExists(atPath: abandoned), "a two-hour-old leftover goes")
        #expect(FileManager.default.fileExists(atPath: arriving), "an upload arriving now stays")
    }
}
