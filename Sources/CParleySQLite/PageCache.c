// SQLite's page cache (pcache1), wrapped so that a commit does not walk every cached page.
//
// At the end of every transaction the pager drops the cached pages past the end of the database
// (pcache1Truncate). The cache remembers the highest page number it ever held and, when that is
// more than its hash table's size past the end, walks the whole table instead of the few buckets
// past the end. When a B-tree rebalances, SQLite reorders the new pages' numbers by swapping
// them through a scratch number — the page that holds the 1 GiB "pending byte" (262 145 with
// 4 KiB pages), which no page ever uses — so after any page split the highest number is that one,
// and the commit walks every cached page: with the writer's 64 MiB cache, 10 % of its time at
// 5 000 messages a second.
//
// The wrapper passes every call through to SQLite's cache, except that a page moved to the
// scratch number is held under the number just above the highest this cache has held (no page
// can be there), and asked for there until it moves on. The cache's highest number then stays at
// the end of the database, and the commit looks at a bucket or two.
#include <sqlite3.h>
#include <string.h>
#include "CParleySQLite.h"

static sqlite3_pcache_methods2 inner;
static int remapNewCaches = 1;
static unsigned long scratchMoves;   // a statistic: races between connections' threads may lose a count

typedef struct {
    sqlite3_pcache *cache;
    int remaps;
    /// SQLite's scratch number for this page size: PENDING_BYTE's page, never a page of a database.
    unsigned scratch;
    /// No page this cache holds has a number above this (an upper bound, lowered by truncation).
    unsigned highest;
    /// While a page is at the scratch number: that page, and the number it is held under.
    sqlite3_pcache_page *scratchPage;
    unsigned scratchHeldAt;
} WrappedCache;

static unsigned held(WrappedCache *w, unsigned key) {
    return (w->scratchPage && key == w->scratch) ? w->scratchHeldAt : key;
}

static int wrapInit(void *arg) { (void)arg; return inner.xInit(inner.pArg); }
static void wrapShutdown(void *arg) { (void)arg; inner.xShutdown(inner.pArg); }

static sqlite3_pcache *wrapCreate(int szPage, int szExtra, int bPurgeable) {
    WrappedCache *w = sqlite3_malloc(sizeof(WrappedCache));
    if (!w) return 0;
    memset(w, 0, sizeof(*w));
    w->cache = inner.xCreate(szPage, szExtra, bPurgeable);
    if (!w->cache) { sqlite3_free(w); return 0; }
    w->remaps = remapNewCaches && szPage > 0;
    w->scratch = w->remaps ? (unsigned)(0x40000000 / szPage) + 1 : 0;
    return (sqlite3_pcache *)w;
}

static void wrapCachesize(sqlite3_pcache *p, int n) { inner.xCachesize(((WrappedCache *)p)->cache, n); }
static int wrapPagecount(sqlite3_pcache *p) { return inner.xPagecount(((WrappedCache *)p)->cache); }
static void wrapShrink(sqlite3_pcache *p) { inner.xShrink(((WrappedCache *)p)->cache); }

static void wrapDestroy(sqlite3_pcache *p) {
    WrappedCache *w = (WrappedCache *)p;
    inner.xDestroy(w->cache);
    sqlite3_free(w);
}

/// Moves the page held at the scratch number to the next free number above the highest.
static void moveScratchUp(WrappedCache *w) {
    unsigned to = w->highest + 1;
    if (to == w->scratchHeldAt) to++;
    inner.xRekey(w->cache, w->scratchPage, w->scratchHeldAt, to);
    w->scratchHeldAt = to;
}

static sqlite3_pcache_page *wrapFetch(sqlite3_pcache *p, unsigned key, int create) {
    WrappedCache *w = (WrappedCache *)p;
    if (!w->remaps) return inner.xFetch(w->cache, key, create);
    if (key == w->scratch) {
        if (w->scratchPage) return inner.xFetch(w->cache, w->scratchHeldAt, create);
        // Nothing at the scratch number: asked for as it is (SQLite never creates a page there).
        return inner.xFetch(w->cache, key, create);
    }
    if (key > w->highest) {
        if (create) {
            w->highest = key;
            // A real page wants the number the scratch page is held under: the scratch page moves on.
            if (w->scratchPage && w->scratchHeldAt <= key) moveScratchUp(w);
        } else if (w->scratchPage && key == w->scratchHeldAt) {
            return 0;   // no page of the database is above the highest: the scratch page is not it
        }
    }
    return inner.xFetch(w->cache, key, create);
}

static void wrapUnpin(sqlite3_pcache *p, sqlite3_pcache_page *page, int discard) {
    WrappedCache *w = (WrappedCache *)p;
    if (discard && page == w->scratchPage) w->scratchPage = 0;
    inner.xUnpin(w->cache, page, discard);
}

static void wrapRekey(sqlite3_pcache *p, sqlite3_pcache_page *page, unsigned oldKey, unsigned newKey) {
    WrappedCache *w = (WrappedCache *)p;
    if (!w->remaps) { inner.xRekey(w->cache, page, oldKey, newKey); return; }
    unsigned from = held(w, oldKey);
    if (oldKey == w->scratch && page == w->scratchPage) w->scratchPage = 0;
    unsigned to = newKey;
    if (newKey == w->scratch) {
        to = w->highest + 1;
        scratchMoves++;
        w->scratchPage = page;
        w->scratchHeldAt = to;
    } else {
        if (newKey > w->highest) w->highest = newKey;
        if (w->scratchPage && w->scratchHeldAt <= newKey) moveScratchUp(w);
    }
    inner.xRekey(w->cache, page, from, to);
}

static void wrapTruncate(sqlite3_pcache *p, unsigned limit) {
    WrappedCache *w = (WrappedCache *)p;
    if (w->remaps && w->scratchPage && w->scratchHeldAt >= limit) w->scratchPage = 0;   // dropped with the rest
    inner.xTruncate(w->cache, limit);
    if (limit > 0 && w->highest > limit - 1) w->highest = limit - 1;
}

static const sqlite3_pcache_methods2 wrapper = {
    1, 0, wrapInit, wrapShutdown, wrapCreate, wrapCachesize, wrapPagecount,
    wrapFetch, wrapUnpin, wrapRekey, wrapTruncate, wrapDestroy, wrapShrink,
};

int parley_sqlite3_install_page_cache(void) {
    int code = sqlite3_config(SQLITE_CONFIG_GETPCACHE2, &inner);
    if (code != SQLITE_OK) return code;
    if (inner.xCreate == wrapCreate) return SQLITE_OK;   // installed already
    return sqlite3_config(SQLITE_CONFIG_PCACHE2, &wrapper);
}

void parley_sqlite3_page_cache_remaps(int on) { remapNewCaches = on; }

unsigned long parley_sqlite3_page_cache_scratch_moves(void) { return scratchMoves; }
