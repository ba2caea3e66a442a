// Batched UDP I/O for the media relay: recvmmsg/sendmmsg, which Glibc declares only under
// _GNU_SOURCE and so Swift cannot import. Elsewhere (macOS) the same calls loop over
// recvmsg/sendmsg.
#ifndef PARLEY_UDP_H
#define PARLEY_UDP_H

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>

/// `struct mmsghdr` (Linux): a message header and the length the kernel sent or received.
struct parley_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};

/// `recvmmsg(fd, msgs, vlen, MSG_WAITFORONE, NULL)`: blocks (up to the socket's SO_RCVTIMEO)
/// for the first datagram, then takes what is already queued. Returns the count, or -1 and errno.
int parley_udp_receive(int fd, struct parley_mmsghdr *msgs, unsigned int vlen);

/// `sendmmsg(fd, msgs, vlen, 0)`: returns how many went, or -1 and errno when the first failed.
int parley_udp_send(int fd, struct parley_mmsghdr *msgs, unsigned int vlen);

/// The MSG_TRUNC flag (a datagram longer than its buffer).
extern const int parley_MSG_TRUNC;

#endif
