import COpenSSL
import CParleyShim

/// The outgoing half of the endpoint's I/O: a source/sink BIO that keeps each `BIO_write` as a
/// separate datagram in the ``DTLSLink``. A memory BIO would glue a flight's records into one
/// byte stream with no boundaries; DTLS needs each record whole in one datagram (RFC 6347 §4.1.1).
///
/// During the handshake OpenSSL stacks a buffering BIO on top of this one and flushes it whenever
/// the next record would not fit the MTU, so one write can hold several records (a first server
/// flight of five records arrives as one ~640-byte write); retransmissions come one record per
/// write. Either way each write is one valid datagram of at most the MTU.
enum DatagramBIO {
    private struct Method: @unchecked Sendable {
        let pointer: OpaquePointer?
    }

    /// Created once per process; OpenSSL never frees it.
    private static let method = Method(pointer: {
        guard let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "parley datagram") else {
            return nil
        }
        _ = BIO_meth_set_write(method, write)
        _ = BIO_meth_set_ctrl(method, control)
        _ = BIO_meth_set_create(method, { bio in
            BIO_set_init(bio, 1)
            return 1
        })
        _ = BIO_meth_set_destroy(method, { bio in
            BIO_set_data(bio, nil)
            return 1
        })
        return method
    }())

    /// A new BIO writing into `link`, which must outlive it.
    static func make(link: DTLSLink) -> OpaquePointer? {
        guard let method = method.pointer, let bio = BIO_new(method) else { return nil }
        BIO_set_data(bio, Unmanaged.passUnretained(link).toOpaque())
        return bio
    }

    private static let write: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = { bio, data, length in
        guard let bio, let data, length > 0, let pointer = BIO_get_data(bio) else { return -1 }
        let link = Unmanaged<DTLSLink>.fromOpaque(pointer).takeUnretainedValue()
        link.outgoing.append(Array(UnsafeRawBufferPointer(start: data, count: Int(length))))
        return length
    }

    /// Only what the DTLS record layer asks of its write BIO. The MTU is set explicitly with
    /// `SSL_OP_NO_QUERY_MTU`, so no socket is ever queried.
    private static let control: @convention(c) (OpaquePointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int = { _, command, _, _ in
        switch command {
        case BIO_CTRL_FLUSH: 1
        case BIO_CTRL_PENDING, BIO_CTRL_WPENDING: 0
        default: 0
        }
    }
}
