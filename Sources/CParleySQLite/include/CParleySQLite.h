#ifndef PARLEY_SQLITE_H
#define PARLEY_SQLITE_H

/// Installs Parley's wrapper around SQLite's own page cache (see PageCache.c). Call once,
/// before the first connection opens; returns SQLITE_OK or SQLite's error.
int parley_sqlite3_install_page_cache(void);

/// Whether caches created from now on move a page through SQLite's scratch page number as
/// SQLite does (0) or at the top of the cache's own numbers (1, the default). For
/// scripts/bench/sqlite-send.c, which compares both in one process.
void parley_sqlite3_page_cache_remaps(int on);

/// How many times a page moved to SQLite's scratch number was held elsewhere, in every cache so far.
unsigned long parley_sqlite3_page_cache_scratch_moves(void);

/// The name of the VFS that gathers a transaction's WAL writes into one (WALWrites.c).
#define PARLEY_WAL_VFS "parley-wal"

/// Registers that VFS (not as the default); call once before opening a connection with it.
int parley_sqlite3_register_wal_vfs(void);

/// Statistics: writes SQLite made to WAL files through that VFS, and writes it made to the kernel.
unsigned long parley_sqlite3_wal_writes_gathered(void);
unsigned long parley_sqlite3_wal_writes_made(void);

#endif
