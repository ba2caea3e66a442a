/* Counts heap allocations of the process it is preloaded into (LD_PRELOAD), so the relay
 * benchmark can show allocations per forwarded packet. On SIGUSR2 it appends the running count
 * to the file named by MALLOC_COUNT_FILE. glibc only: it forwards to __libc_* allocators. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_ulong allocations;
static int out_fd = -1;

void *malloc(size_t n) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_realloc(p, n); }
void *memalign(size_t a, size_t n) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { return memalign(a, n); }
int posix_memalign(void **p, size_t a, size_t n) { *p = memalign(a, n); return *p ? 0 : 12; }

/* Async-signal-safe: formats the count by hand and write()s it. */
static void report(int sig) {
    (void)sig;
    if (out_fd < 0) return;
    char buf[32];
    unsigned long v = atomic_load(&allocations);
    int i = sizeof buf - 1;
    buf[i--] = '\n';
    do { buf[i--] = (char)('0' + v % 10); v /= 10; } while (v && i >= 0);
    (void)!write(out_fd, buf + i + 1, sizeof buf - 1 - i);
}

__attribute__((constructor)) static void start(void) {
    const char *path = getenv("MALLOC_COUNT_FILE");
    if (path) out_fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = report;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR2, &sa, NULL);
}

/* And once more at exit, for processes that end by themselves (the reference relay). */
__attribute__((destructor)) static void stop(void) { report(0); }
