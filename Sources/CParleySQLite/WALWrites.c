// A VFS over SQLite's own that gathers a transaction's writes into its WAL file and hands them
// to the kernel in one write.
//
// SQLite writes each WAL frame with two system calls, its 24-byte header and then the page, one
// after the other at the end of the file (walWriteOneFrame). A chat message's transaction writes
// ~10 pages, and at 5 000 messages a second the writer made ~60 000 `pwrite`s a second. Here a
// write that continues where the last one ended is copied into a buffer, and the buffer goes to
// the file in one `pwrite`:
// - as soon as the page of a commit frame is in it (a frame header whose "database size" field is
//   not zero marks the commit, as SQLite's WAL format defines it), from that same `xWrite`
//   call, so that a failure is the commit's failure, as it would have been without the buffer.
//   SQLite publishes a commit in the WAL index only after its frames are written, so no reader,
//   checkpointer or recovery ever sees a frame that is not in the file;
// - before anything else is done with the file (a read, a sync, a truncation, its size, closing
//   it), before a write that does not continue the buffer, and when the buffer is full;
// - a write into frames already written (SQLite rewriting checksums) is not gathered at all;
// - and, as a safety net, before the database file's shared-memory locks change hands.
// What a process killed before its commit frame leaves unwritten is what it had not committed.
#include <sqlite3.h>
#include <string.h>
#include "CParleySQLite.h"

/// SQLite's unix VFS writes at most 128 KiB − 1 bytes a call (it masks the length with 0x1ffff).
#define BUFFER_SIZE 128000
#define FRAME_HEADER 24

typedef struct WrappedFile WrappedFile;
typedef struct WALFile WALFile;

/// A file opened through the VFS; SQLite's own file object is at `real`, after the largest header.
struct WrappedFile {
    sqlite3_file base;
    sqlite3_file *real;
    /// A main database file: its connection's WAL file while that is open.
    WALFile *wal;
};

struct WALFile {
    WrappedFile file;
    /// The database file whose `wal` this is (cleared if that closes first).
    WrappedFile *database;
    unsigned char *buffer;
    int length;
    sqlite3_int64 start;   // the file offset of buffer[0]
    /// The last write was a commit frame's header: its page, when it comes, ends the commit.
    int commitPageNext;
    /// Where what this WAL generation has written ends (a write at offset 0, its header, starts
    /// a new generation).
    sqlite3_int64 end;
};

static sqlite3_vfs *inner;
static sqlite3_vfs vfs;
static sqlite3_io_methods databaseMethods, walMethods;
static unsigned long writesGathered, writesMade;   // statistics (not exact under concurrency)

#define REAL(f) (((WrappedFile *)(f))->real)

static int flush(WALFile *w) {
    if (w->length == 0) return SQLITE_OK;
    int length = w->length;
    w->length = 0;
    writesMade++;
    return REAL(w)->pMethods->xWrite(REAL(w), w->buffer, length, w->start);
}

// What both kinds of file pass straight through.
static int passRead(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xRead(REAL(f), b, n, o); }
static int passWrite(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xWrite(REAL(f), b, n, o); }
static int passTruncate(sqlite3_file *f, sqlite3_int64 s) { return REAL(f)->pMethods->xTruncate(REAL(f), s); }
static int passSync(sqlite3_file *f, int flags) { return REAL(f)->pMethods->xSync(REAL(f), flags); }
static int passFileSize(sqlite3_file *f, sqlite3_int64 *s) { return REAL(f)->pMethods->xFileSize(REAL(f), s); }
static int passLock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int passUnlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int passCheckReservedLock(sqlite3_file *f, int *r) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), r); }
static int passFileControl(sqlite3_file *f, int op, void *a) { return REAL(f)->pMethods->xFileControl(REAL(f), op, a); }
static int passSectorSize(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int passDeviceCharacteristics(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int passShmMap(sqlite3_file *f, int i, int s, int e, void volatile **p) { return REAL(f)->pMethods->xShmMap(REAL(f), i, s, e, p); }
static int passShmLock(sqlite3_file *f, int o, int n, int flags) { return REAL(f)->pMethods->xShmLock(REAL(f), o, n, flags); }
static void passShmBarrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int passShmUnmap(sqlite3_file *f, int d) { return REAL(f)->pMethods->xShmUnmap(REAL(f), d); }
static int passFetch(sqlite3_file *f, sqlite3_int64 o, int n, void **p) { return REAL(f)->pMethods->xFetch(REAL(f), o, n, p); }
static int passUnfetch(sqlite3_file *f, sqlite3_int64 o, void *p) { return REAL(f)->pMethods->xUnfetch(REAL(f), o, p); }

// The database file.
static int databaseShmLock(sqlite3_file *f, int offset, int n, int flags) {
    WrappedFile *file = (WrappedFile *)f;
    if (file->wal) {
        int code = flush(file->wal);
        if (code != SQLITE_OK) return code;
    }
    return passShmLock(f, offset, n, flags);
}

static int databaseClose(sqlite3_file *f) {
    WrappedFile *file = (WrappedFile *)f;
    if (file->wal) file->wal->database = 0;
    return REAL(f)->pMethods->xClose(REAL(f));
}

// The WAL file.
static int walWrite(sqlite3_file *f, const void *data, int amount, sqlite3_int64 offset) {
    WALFile *w = (WALFile *)f;
    if (offset == 0) w->end = 0;
    int continues = w->length > 0 && offset == w->start + w->length;
    if (offset < w->end && !continues) {
        // Into frames already written: SQLite rewriting headers' checksums after a frame was
        // written twice in one transaction (walRewriteChecksums), which may come after the
        // commit frame. Written now, so that its failure is the transaction's.
        w->commitPageNext = 0;
        int code = flush(w);
        if (code != SQLITE_OK) return code;
        writesMade++;
        return passWrite(f, data, amount, offset);
    }
    if (offset + amount > w->end) w->end = offset + amount;
    int endsCommit = w->commitPageNext;
    const unsigned char *bytes = data;
    w->commitPageNext = amount == FRAME_HEADER && (bytes[4] | bytes[5] | bytes[6] | bytes[7]) != 0;
    if (!(continues && w->length + amount <= BUFFER_SIZE)) {
        int code = flush(w);
        if (code != SQLITE_OK) return code;
        if (amount >= BUFFER_SIZE) { writesMade++; return passWrite(f, data, amount, offset); }
        w->start = offset;
    }
    memcpy(w->buffer + w->length, data, amount);
    w->length += amount;
    writesGathered++;
    return endsCommit ? flush(w) : SQLITE_OK;
}

static int walRead(sqlite3_file *f, void *b, int n, sqlite3_int64 o) {
    int code = flush((WALFile *)f);
    return code != SQLITE_OK ? code : passRead(f, b, n, o);
}
static int walTruncate(sqlite3_file *f, sqlite3_int64 s) {
    int code = flush((WALFile *)f);
    return code != SQLITE_OK ? code : passTruncate(f, s);
}
static int walSync(sqlite3_file *f, int flags) {
    int code = flush((WALFile *)f);
    return code != SQLITE_OK ? code : passSync(f, flags);
}
static int walFileSize(sqlite3_file *f, sqlite3_int64 *s) {
    int code = flush((WALFile *)f);
    return code != SQLITE_OK ? code : passFileSize(f, s);
}
static int walFileControl(sqlite3_file *f, int op, void *a) {
    int code = flush((WALFile *)f);
    return code != SQLITE_OK ? code : passFileControl(f, op, a);
}
static int walClose(sqlite3_file *f) {
    WALFile *w = (WALFile *)f;
    int code = flush(w);
    if (w->database) w->database->wal = 0;
    sqlite3_free(w->buffer);
    int closed = REAL(f)->pMethods->xClose(REAL(f));
    return code != SQLITE_OK ? code : closed;
}

static int vfsOpen(sqlite3_vfs *v, sqlite3_filename name, sqlite3_file *f, int flags, int *outFlags) {
    (void)v;
    memset(f, 0, sizeof(WALFile));
    WrappedFile *file = (WrappedFile *)f;
    file->real = (sqlite3_file *)((char *)f + sizeof(WALFile));
    int code = inner->xOpen(inner, name, file->real, flags, outFlags);
    if (code != SQLITE_OK) {
        // SQLite calls xClose only when pMethods is set: the real file's own, if it set them.
        if (file->real->pMethods) file->real->pMethods->xClose(file->real);
        return code;
    }
    if (flags & SQLITE_OPEN_WAL) {
        WALFile *w = (WALFile *)f;
        w->buffer = sqlite3_malloc(BUFFER_SIZE);
        if (!w->buffer) {
            file->real->pMethods->xClose(file->real);
            return SQLITE_NOMEM;
        }
        // Its database's file object (the pager opens the database first, through this VFS too).
        sqlite3_file *database = sqlite3_database_file_object(name);
        if (database && database->pMethods == &databaseMethods) {
            w->database = (WrappedFile *)database;
            w->database->wal = w;
        }
        f->pMethods = &walMethods;
    } else {
        f->pMethods = &databaseMethods;
    }
    return SQLITE_OK;
}

static int vfsDelete(sqlite3_vfs *v, const char *n, int s) { (void)v; return inner->xDelete(inner, n, s); }
static int vfsAccess(sqlite3_vfs *v, const char *n, int f, int *r) { (void)v; return inner->xAccess(inner, n, f, r); }
static int vfsFullPathname(sqlite3_vfs *v, const char *n, int s, char *o) { (void)v; return inner->xFullPathname(inner, n, s, o); }
static void *vfsDlOpen(sqlite3_vfs *v, const char *n) { (void)v; return inner->xDlOpen(inner, n); }
static void vfsDlError(sqlite3_vfs *v, int n, char *m) { (void)v; inner->xDlError(inner, n, m); }
static void (*vfsDlSym(sqlite3_vfs *v, void *h, const char *s))(void) { (void)v; return inner->xDlSym(inner, h, s); }
static void vfsDlClose(sqlite3_vfs *v, void *h) { (void)v; inner->xDlClose(inner, h); }
static int vfsRandomness(sqlite3_vfs *v, int n, char *o) { (void)v; return inner->xRandomness(inner, n, o); }
static int vfsSleep(sqlite3_vfs *v, int us) { (void)v; return inner->xSleep(inner, us); }
static int vfsCurrentTime(sqlite3_vfs *v, double *t) { (void)v; return inner->xCurrentTime(inner, t); }
static int vfsGetLastError(sqlite3_vfs *v, int n, char *m) { (void)v; return inner->xGetLastError(inner, n, m); }
static int vfsCurrentTimeInt64(sqlite3_vfs *v, sqlite3_int64 *t) { (void)v; return inner->xCurrentTimeInt64(inner, t); }

int parley_sqlite3_register_wal_vfs(void) {
    if (inner) return SQLITE_OK;
    sqlite3_vfs *base = sqlite3_vfs_find(0);
    if (!base || base->iVersion < 2) return SQLITE_ERROR;
    databaseMethods = (sqlite3_io_methods){
        3, databaseClose, passRead, passWrite, passTruncate, passSync, passFileSize, passLock, passUnlock,
        passCheckReservedLock, passFileControl, passSectorSize, passDeviceCharacteristics,
        passShmMap, databaseShmLock, passShmBarrier, passShmUnmap, passFetch, passUnfetch,
    };
    walMethods = (sqlite3_io_methods){
        3, walClose, walRead, walWrite, walTruncate, walSync, walFileSize, passLock, passUnlock,
        passCheckReservedLock, walFileControl, passSectorSize, passDeviceCharacteristics,
        passShmMap, passShmLock, passShmBarrier, passShmUnmap, passFetch, passUnfetch,
    };
    vfs = (sqlite3_vfs){
        2, (int)sizeof(WALFile) + base->szOsFile, base->mxPathname, 0, PARLEY_WAL_VFS, 0,
        vfsOpen, vfsDelete, vfsAccess, vfsFullPathname, vfsDlOpen, vfsDlError, vfsDlSym, vfsDlClose,
        vfsRandomness, vfsSleep, vfsCurrentTime, vfsGetLastError, vfsCurrentTimeInt64,
    };
    inner = base;
    return sqlite3_vfs_register(&vfs, 0);
}

unsigned long parley_sqlite3_wal_writes_gathered(void) { return writesGathered; }
unsigned long parley_sqlite3_wal_writes_made(void) { return writesMade; }
