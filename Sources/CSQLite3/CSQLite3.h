#include <sqlite3.h>

/// sqlite3_config is variadic, which Swift cannot call: the one setting Parley makes, as a function.
/// Off, SQLite keeps no count of its memory, and so takes no lock around every allocation.
static inline int parley_sqlite3_count_memory(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}
