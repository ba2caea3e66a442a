import Foundation
import HummingbirdTesting
import ParleyApp
import Testing

/// Uploads on nodes that share one files directory (`files.directory`): an attachment (what
/// photos, videos, voice messages and stories are) and a profile picture stored through node 1
/// come back from node 2 byte for byte, and nothing lands in either node's own data folder.
@Suite struct TwoNodesFilesTests {
    @Test func anUploadOnOneNodeDownloadsIdenticallyFromTheOther() async throws {
        let shared = TestParley.newDirectory()
        defer { try? FileManager.default.removeItem(atPath: shared) }
        try await TwoNodesTests.twoNodes({ $0.filesDirectory = shared }) { one, node1, two, node2 in
            let (ann, bo, dialog) = try await node1.annAndBoInTheirDialog(outbox: one.outbox)

            // A photo Ann uploads through node 1 and sends Bo; Bo, on node 2, fetches it whole and in part.
            let photo = UploadTests.png(padding: 300 * 1024, seed: 15)
            let uploaded = try await node1.call(.post, "/v1/attachments", raw: photo, token: ann.accessToken)
            #expect(uploaded.status == .created, "\(uploaded.text)")
            let id = try #require(uploaded["id"] as? String)
            let sent = try await node1.call(.post, "/v1/dialogs/\(dialog)/messages",
                                            json: ["clientMessageId": "pic", "kind": "image", "attachmentId": id], token: ann.accessToken)
            #expect(sent.status == .created, "\(sent.text)")
            let fetched = try await node2.call(.get, "/v1/attachments/\(id)", token: bo.accessToken)
            #expect(fetched.status == .ok)
            #expect(fetched.bytes == photo, "byte-identical on the other node")
            let part = try await node2.call(.get, "/v1/attachments/\(id)", token: bo.accessToken, headers: [.range: "bytes=1000-1999"])
            #expect(part.status == .partialContent)
            #expect(part.bytes == Array(photo[1000...1999]))

            // Her profile picture, set through node 1, is served by node 2.
            let avatar = try await node1.call(.put, "/v1/me/avatar", raw: TestImages.png, token: ann.accessToken)
            let url = try #require(avatar.user["avatarUrl"] as? String, "\(avatar.text)")
            let picture = try await node2.call(.get, String(url.dropFirst("http://parley.test".count)), token: bo.accessToken)
            #expect(picture.bytes == TestImages.png)

            // Everything is in the shared folder; neither node's data folder holds an upload.
            #expect(FileManager.default.fileExists(atPath: shared + "/files") && FileManager.default.fileExists(atPath: shared + "/avatars"))
            for node in [one, two] {
                #expect(!FileManager.default.fileExists(atPath: node.directory + "/files"))
                #expect(!FileManager.default.fileExists(atPath: node.directory + "/avatars"))
            }
        }
    }
}
