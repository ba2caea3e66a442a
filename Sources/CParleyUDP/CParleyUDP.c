#define _GNU_SOURCE
#include "CParleyUDP.h"

#include <errno.h>
#include <stddef.h>

const int parley_MSG_TRUNC = MSG_TRUNC;

#if defined(__linux__)
_Static_assert(sizeof(struct parley_mmsghdr) == sizeof(struct mmsghdr), "mmsghdr layout");
_Static_assert(offsetof(struct parley_mmsghdr, msg_len) == offsetof(struct mmsghdr, msg_len), "mmsghdr layout");

int parley_udp_receive(int fd, struct parley_mmsghdr *msgs, unsigned int vlen) {
    return recvmmsg(fd, (struct mmsghdr *)msgs, vlen, MSG_WAITFORONE, NULL);
}

int parley_udp_send(int fd, struct parley_mmsghdr *msgs, unsigned int vlen) {
    return sendmmsg(fd, (struct mmsghdr *)msgs, vlen, 0);
}
#else
int parley_udp_receive(int fd, struct parley_mmsghdr *msgs, unsigned int vlen) {
    unsigned int count = 0;
    while (count < vlen) {
        ssize_t n = recvmsg(fd, &msgs[count].msg_hdr, count == 0 ? 0 : MSG_DONTWAIT);
        if (n < 0) return count > 0 ? (int)count : -1;
        msgs[count].msg_len = (unsigned int)n;
        count++;
    }
    return (int)count;
}

int parley_udp_send(int fd, struct parley_mmsghdr *msgs, unsigned int vlen) {
    unsigned int count = 0;
    while (count < vlen) {
        ssize_t n = sendmsg(fd, &msgs[count].msg_hdr, 0);
        if (n < 0) return count > 0 ? (int)count : -1;
        msgs[count].msg_len = (unsigned int)n;
        count++;
    }
    return (int)count;
}
#endif
