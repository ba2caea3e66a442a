/* The statements SQLite's writer runs for one chat message, replayed in C against the same
 * library, without Parley's Swift around them: what the store costs by itself, and how a change
 * to the statements or the schema moves it. The chat load test's shape: 1 000 users, each in one
 * private dialog and one group of 5, friends in groups of 20; a batch of 256 messages a
 * transaction (group commit), each message the send context's reads (dialog and request,
 * members, blockers, and for a private dialog the block and friendship toward the other), the
 * message's row (looked for under its client id, the counter moved, the row inserted), the
 * sender's membership, the recipients' heads moved on and their events inserted.
 * The shipped statements and each variant asked for run in one process, each on a database of
 * its own, a batch each in turn: the machine's drift (10–20 % between runs here) falls on all
 * alike, and each is told as CPU time a message and against the shipped one.
 * usage: sqlite-send SCHEMA.sql FOLDER [variant[+variant…]]…; variants: savepoints (a savepoint
 *   per message), folded-insert (the row inserted from the dialog's counter, ON CONFLICT DO
 *   NOTHING RETURNING seq, then the counter set), members-order (ORDER BY joined_at, user_id in
 *   SQL), no-event-keys (user_events and user_event_heads without their foreign key to users),
 *   heads-without-rowid (user_event_heads WITHOUT ROWID), no-heads (each recipient's next number
 *   read from its newest event instead of a counter row moved on), sqlite-page-cache (the page
 *   cache as SQLite has it: Parley's wrapper, Sources/CParleySQLite/PageCache.c, passes the
 *   scratch page number of a rebalance through), sqlite-wal-writes (each WAL write its own system
 *   call, as SQLite makes them: Parley's VFS, Sources/CParleySQLite/WALWrites.c, gathers a
 *   transaction's), events-without-rowid (user_events WITHOUT ROWID), no-events-created (user_events
 *   without its created_at index), no-events (no event rows stored: what they cost), no-context (no
 *   send context read: what it costs), shared-payload (an event's payload stored once, in a table
 *   of its own, and each recipient's row a reference to it, WITHOUT ROWID), shared-payload-indexed
 *   (the same, the references indexed by payload as pruning would need), page-N (`page_size` N).
 * env: WARMUP (messages before the timing, 20 000), MESSAGES (timed, 30 000), BATCH (messages a
 *   transaction, 256; under load the server's batches are smaller, and each commit's own cost
 *   weighs more a message). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "CParleySQLite.h"

#define USERS 1000
#define DIALOGS 700
static int BATCH = 256;
#define NOW 1700000000000LL

/* One database and its statements: the shipped ones, or a variant's. */
typedef struct {
    sqlite3 *db;
    const char *name;
    int savepoints, folded, membersOrder, noEventKeys, headsWithoutRowid, noHeads, sqlitePageCache, sqliteWALWrites, eventsWithoutRowid, noEventsCreated, noEvents, noContext, pageSize, shared, sharedIndex, batch;
    sqlite3_stmt *bodyInsert, *refsInsert[6];
    unsigned random;
    sqlite3_stmt *dialogRead, *membersRead, *blockersRead, *towardRead, *existingRead, *counterMove, *messageInsert,
        *foldedInsert, *counterSet, *membershipUpdate, *headsUpsert[6], *eventsInsert[6], *lastEvent, *savepoint, *release, *begin, *commit;
    long sent;
    double seconds;
} Replay;

static sqlite3 *db;   /* the database being worked on (`fail`, `script`, `prepare`) */
static Replay *r;     /* and its replay */
static char users[USERS][37], dialogs[DIALOGS][37];
static int isGroup[DIALOGS], members[DIALOGS][5], memberCount[DIALOGS], dialogsOf[USERS][2];
static const char *payload = "{\"message\":{\"createdAt\":\"2026-11-27T03:00:00.000Z\",\"dialogId\":\"00000000-0000-0000-0000-000000000000\","
    "\"id\":\"00000000-0000-0000-0000-000000000000\",\"kind\":\"text\",\"senderId\":\"00000000-0000-0000-0000-000000000000\",\"seq\":123,"
    "\"text\":\"hello there, hello there, hello there\"}}";

static void fail(const char *what) { fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db)); exit(1); }
static void script(const char *sql) {
    char *error = 0;
    if (sqlite3_exec(db, sql, 0, 0, &error) != SQLITE_OK) { fprintf(stderr, "%s\n", error); exit(1); }
}
static sqlite3_stmt *prepare(const char *sql) {
    sqlite3_stmt *statement;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement, 0) != SQLITE_OK) fail(sql);
    return statement;
}
static void text(sqlite3_stmt *s, int i, const char *t) { sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT); }
static void integer(sqlite3_stmt *s, int i, long long n) { sqlite3_bind_int64(s, i, n); }
/* Steps to the end, reading every column as the store would; the first row's column `column` as an integer. */
static long long run(sqlite3_stmt *s, int column) {
    long long first = 0; int rows = 0, code;
    while ((code = sqlite3_step(s)) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(s); c++) (void)sqlite3_column_text(s, c);
        if (rows++ == 0 && column >= 0) first = sqlite3_column_int64(s, column);
    }
    if (code != SQLITE_DONE) fail(sqlite3_sql(s));
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return first;
}
static void uuid(char *out) {
    static const char *hex = "0123456789abcdef";
    for (int i = 0; i < 36; i++) out[i] = (i == 8 || i == 13 || i == 18 || i == 23) ? '-' : hex[rand() % 16];
    out[36] = 0;
}
static int byID(const void *a, const void *b) { return strcmp(users[*(const int *)a], users[*(const int *)b]); }

static void send(Replay *r, int user, int dialog) {
    char clientID[32], id[48];
    r->sent++;
    sprintf(clientID, "c-%ld", r->sent);
    sprintf(id, "%08lx-0000-7000-8000-000000000000", r->sent);
    const char *me = users[user], *in = dialogs[dialog];
    if (!r->noContext) {
    text(r->dialogRead, 1, in); run(r->dialogRead, -1);
    text(r->membersRead, 1, in); run(r->membersRead, -1);
    text(r->blockersRead, 1, me); run(r->blockersRead, -1);
    if (!isGroup[dialog]) {
        const char *other = users[members[dialog][0] == user ? members[dialog][1] : members[dialog][0]];
        int lowFirst = strcmp(me, other) < 0;
        text(r->towardRead, 1, me); text(r->towardRead, 2, other);
        text(r->towardRead, 3, lowFirst ? me : other); text(r->towardRead, 4, lowFirst ? other : me);
        run(r->towardRead, -1);
    }
    }
    long long seq;
    if (r->folded) {
        sqlite3_stmt *s = r->foldedInsert;
        text(s, 1, id); text(s, 2, me); text(s, 3, clientID); text(s, 4, "text"); text(s, 5, "hello there");
        for (int i = 6; i <= 9; i++) sqlite3_bind_null(s, i);
        integer(s, 10, NOW); text(s, 11, in);
        seq = run(s, 0);
        integer(r->counterSet, 1, seq); integer(r->counterSet, 2, NOW); text(r->counterSet, 3, in); run(r->counterSet, -1);
    } else {
        text(r->existingRead, 1, in); text(r->existingRead, 2, me); text(r->existingRead, 3, clientID); run(r->existingRead, -1);
        integer(r->counterMove, 1, NOW); text(r->counterMove, 2, in);
        seq = run(r->counterMove, 0);
        sqlite3_stmt *s = r->messageInsert;
        text(s, 1, id); text(s, 2, in); integer(s, 3, seq); text(s, 4, me); text(s, 5, clientID); text(s, 6, "text");
        text(s, 7, "hello there");
        for (int i = 8; i <= 11; i++) sqlite3_bind_null(s, i);
        integer(s, 12, NOW);
        run(s, -1);
    }
    text(r->membershipUpdate, 1, me); integer(r->membershipUpdate, 2, seq); text(r->membershipUpdate, 3, in); text(r->membershipUpdate, 4, me);
    run(r->membershipUpdate, -1);
    int n = memberCount[dialog], recipients[5];
    long long numbers[5] = {0};
    memcpy(recipients, members[dialog], sizeof(int) * n);
    qsort(recipients, n, sizeof(int), byID);
    sqlite3_stmt *heads = r->headsUpsert[n], *events = r->eventsInsert[n];
    if (r->noHeads) {
        for (int i = 0; i < n; i++) { text(r->lastEvent, 1, users[recipients[i]]); numbers[i] = run(r->lastEvent, 0); }
    } else {
        for (int i = 0; i < n; i++) text(heads, i + 1, users[recipients[i]]);
        int code;
        while ((code = sqlite3_step(heads)) == SQLITE_ROW) {
            const char *who = (const char *)sqlite3_column_text(heads, 0);
            for (int i = 0; i < n; i++) if (!strcmp(who, users[recipients[i]])) numbers[i] = sqlite3_column_int64(heads, 1);
        }
        if (code != SQLITE_DONE) fail("heads");
        sqlite3_reset(heads);
        sqlite3_clear_bindings(heads);
    }
    for (int i = 0; i < n; i++) {
        text(events, 6 * i + 1, users[recipients[i]]); integer(events, 6 * i + 2, numbers[i]); text(events, 6 * i + 3, "message.new");
        text(events, 6 * i + 4, payload); integer(events, 6 * i + 5, NOW); sqlite3_bind_null(events, 6 * i + 6);
    }
    if (r->noEvents) { sqlite3_clear_bindings(events); return; }
    if (r->shared) {
        sqlite3_clear_bindings(events);
        sqlite3_stmt *b = r->bodyInsert;
        text(b, 1, "message.new"); text(b, 2, payload); integer(b, 3, NOW); sqlite3_bind_null(b, 4);
        run(b, -1);
        long long body = sqlite3_last_insert_rowid(r->db);
        sqlite3_stmt *refs = r->refsInsert[n];
        for (int i = 0; i < n; i++) { text(refs, 3 * i + 1, users[recipients[i]]); integer(refs, 3 * i + 2, numbers[i]); integer(refs, 3 * i + 3, body); }
        run(refs, -1);
        return;
    }
    run(events, -1);
}

static void sendBatches(Replay *r, long count) {
    for (long done = 0; done < count;) {
        run(r->begin, -1);
        for (int i = 0; i < (r->batch ? r->batch : BATCH) && done < count; i++, done++) {
            int user = rand_r(&r->random) % USERS;
            if (r->savepoints) run(r->savepoint, -1);
            send(r, user, dialogsOf[user][rand_r(&r->random) % 2]);
            if (r->savepoints) run(r->release, -1);
        }
        run(r->commit, -1);
    }
}

/* The people and their dialogs, the same for every database. */
static void makePeople(void) {
    srand(1);
    for (int i = 0; i < USERS; i++) uuid(users[i]);
    for (int d = 0; d < DIALOGS; d++) uuid(dialogs[d]);
    int count = 0;
    for (int k = 0; k < USERS; k += 2, count++) {
        memberCount[count] = 2; members[count][0] = k; members[count][1] = k + 1;
        dialogsOf[k][0] = dialogsOf[k + 1][0] = count;
    }
    for (int first = 0; first < USERS; first += 5, count++) {
        isGroup[count] = 1; memberCount[count] = 5;
        for (int j = 0; j < 5; j++) { members[count][j] = first + j; dialogsOf[first + j][1] = count; }
    }
}

static void seed(void) {
    script("BEGIN");
    sqlite3_stmt *user = prepare("INSERT INTO users (id, email, name, name_key, status, password_hash, date_of_birth, created_at, updated_at) "
                                 "VALUES (?, ?, 'n', 'n', 'active', 'x', '2000-01-01', 0, 0)");
    for (int i = 0; i < USERS; i++) {
        char email[32];
        sprintf(email, "u%d@bench.test", i);
        text(user, 1, users[i]); text(user, 2, email); run(user, -1);
    }
    sqlite3_stmt *friends = prepare("INSERT INTO friendships (user_low, user_high, created_at) VALUES (?, ?, 0)");
    for (int group = 0; group < USERS; group += 20)
        for (int a = group; a < group + 20; a++)
            for (int b = a + 1; b < group + 20; b++) {
                int lowFirst = strcmp(users[a], users[b]) < 0;
                text(friends, 1, users[lowFirst ? a : b]); text(friends, 2, users[lowFirst ? b : a]); run(friends, -1);
            }
    sqlite3_stmt *dialog = prepare("INSERT INTO dialogs (id, type, created_by, created_at, updated_at, last_message_seq) VALUES (?, ?, ?, 0, 0, 0)");
    sqlite3_stmt *member = prepare("INSERT INTO dialog_members (dialog_id, user_id, joined_at, read_seq, cleared_seq, hidden) VALUES (?, ?, 0, 0, 0, 0)");
    for (int d = 0; d < DIALOGS; d++) {
        text(dialog, 1, dialogs[d]); text(dialog, 2, isGroup[d] ? "group" : "private"); text(dialog, 3, users[members[d][0]]); run(dialog, -1);
        for (int j = 0; j < memberCount[d]; j++) { text(member, 1, dialogs[d]); text(member, 2, users[members[d][j]]); run(member, -1); }
    }
    script("COMMIT");
}

static void prepareSend(Replay *r) {
    r->dialogRead = prepare("SELECT d.id, d.type, d.name, d.avatar_attachment_id, d.created_by, d.owner_id, d.created_at, d.updated_at, "
                         "d.last_message_seq, r.dialog_id AS request_dialog_id, r.from_user, r.to_user, r.status, r.first_seq, r.created_at "
                         "FROM dialogs d LEFT JOIN message_requests r ON r.dialog_id = d.id WHERE d.id = ?");
    r->membersRead = prepare(r->membersOrder
        ? "SELECT dialog_id, user_id, joined_at, read_seq, cleared_seq, hidden FROM dialog_members WHERE dialog_id = ? ORDER BY joined_at, user_id"
        : "SELECT dialog_id, user_id, joined_at, read_seq, cleared_seq, hidden FROM dialog_members WHERE dialog_id = ?");
    r->blockersRead = prepare("SELECT blocker FROM blocks WHERE blocked = ?");
    r->towardRead = prepare("SELECT EXISTS (SELECT 1 FROM blocks WHERE blocker = ? AND blocked = ?) AS blocks_other, "
                         "EXISTS (SELECT 1 FROM friendships WHERE user_low = ? AND user_high = ?) AS friends");
    const char *columns = "id, dialog_id, seq, sender_id, client_message_id, kind, text, attachment_id, call, location, forwarded_from, created_at";
    char sql[4096];
    sprintf(sql, "SELECT %s FROM messages WHERE dialog_id = ? AND sender_id = ? AND client_message_id = ?", columns);
    r->existingRead = prepare(sql);
    r->counterMove = prepare("UPDATE dialogs SET last_message_seq = last_message_seq + 1, updated_at = ? WHERE id = ? RETURNING last_message_seq");
    sprintf(sql, "INSERT INTO messages (%s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", columns);
    r->messageInsert = prepare(sql);
    sprintf(sql, "INSERT INTO messages (%s) SELECT ?, id, last_message_seq + 1, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM dialogs WHERE id = ? "
                 "ON CONFLICT (dialog_id, sender_id, client_message_id) DO NOTHING RETURNING seq", columns);
    r->foldedInsert = prepare(sql);
    r->counterSet = prepare("UPDATE dialogs SET last_message_seq = ?, updated_at = ? WHERE id = ?");
    r->membershipUpdate = prepare("UPDATE dialog_members SET hidden = 0, read_seq = CASE WHEN user_id = ? THEN ? ELSE read_seq END "
                               "WHERE dialog_id = ? AND (user_id = ? OR hidden <> 0)");
    for (int n = 2; n <= 5; n += 3) {
        strcpy(sql, "INSERT INTO user_event_heads (user_id, last_seq) VALUES ");
        for (int i = 0; i < n; i++) strcat(sql, i ? ", (?, 1)" : "(?, 1)");
        strcat(sql, " ON CONFLICT (user_id) DO UPDATE SET last_seq = user_event_heads.last_seq + 1 RETURNING user_id, last_seq");
        r->headsUpsert[n] = prepare(sql);
        strcpy(sql, "INSERT INTO user_events (user_id, seq, type, payload, created_at, except_session) VALUES ");
        for (int i = 0; i < n; i++) strcat(sql, i ? ", (?, ?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?, ?)");
        r->eventsInsert[n] = prepare(sql);
        if (r->shared) {
            strcpy(sql, "INSERT INTO user_event_refs (user_id, seq, body) VALUES ");
            for (int i = 0; i < n; i++) strcat(sql, i ? ", (?, ?, ?)" : "(?, ?, ?)");
            r->refsInsert[n] = prepare(sql);
        }
    }
    if (r->shared) r->bodyInsert = prepare("INSERT INTO event_bodies (type, payload, created_at, except_session) VALUES (?, ?, ?, ?)");
    r->lastEvent = prepare("SELECT coalesce(max(seq), 0) + 1 FROM user_events WHERE user_id = ?");
    r->savepoint = prepare("SAVEPOINT job"); r->release = prepare("RELEASE job");
    r->begin = prepare("BEGIN IMMEDIATE"); r->commit = prepare("COMMIT");
}

/* `schema` with a variant's changes to its tables. */
static char *schemaFor(const char *schema, const Replay *r) {
    char *text = strdup(schema);
    const char *keys = "REFERENCES \"users\" (\"id\") ON DELETE CASCADE";
    const char *tables[] = {"CREATE TABLE IF NOT EXISTS \"user_event_heads\"", "CREATE TABLE IF NOT EXISTS \"user_events\""};
    for (int t = 0; t < 2; t++) {
        char *table = strstr(text, tables[t]);
        if (!table) { fprintf(stderr, "no %s in the schema\n", tables[t]); exit(1); }
        char *end = strchr(table, ';'), *key = strstr(table, keys);
        if (r->noEventKeys && key && key < end) memset(key, ' ', strlen(keys));
        if ((r->headsWithoutRowid && t == 0) || (r->eventsWithoutRowid && t == 1)) {
            size_t at = end - text;
            char *longer = malloc(strlen(text) + 16);
            memcpy(longer, text, at);
            strcpy(longer + at, " WITHOUT ROWID");
            strcat(longer, text + at);
            free(text);
            text = longer;
        }
    }
    if (r->noEventsCreated) {
        char *index = strstr(text, "CREATE INDEX \"user_events_created\"");
        if (!index) { fprintf(stderr, "no user_events_created in the schema\n"); exit(1); }
        memset(index, ' ', strchr(index, ';') + 1 - index);
    }
    return text;
}

static double threadSeconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void use(Replay *replay) { r = replay; db = replay->db; }

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: sqlite-send SCHEMA.sql FOLDER [variant[+variant…]]…\n"); return 2; }
    FILE *file = fopen(argv[1], "r");
    if (!file) { perror(argv[1]); return 1; }
    static char schema[1 << 20];
    schema[fread(schema, 1, sizeof schema - 1, file)] = 0;
    fclose(file);
    int count = 1 + argc - 3;
    Replay *replays = calloc(count, sizeof(Replay));
    replays[0].name = "shipped";
    for (int i = 1; i < count; i++) {
        Replay *v = &replays[i];
        v->name = argv[i + 2];
        char *names = strdup(argv[i + 2]);
        for (char *name = strtok(names, "+"); name; name = strtok(0, "+")) {
            if (!strcmp(name, "savepoints")) v->savepoints = 1;
            else if (!strcmp(name, "folded-insert")) v->folded = 1;
            else if (!strcmp(name, "members-order")) v->membersOrder = 1;
            else if (!strcmp(name, "no-event-keys")) v->noEventKeys = 1;
            else if (!strcmp(name, "heads-without-rowid")) v->headsWithoutRowid = 1;
            else if (!strcmp(name, "no-heads")) v->noHeads = 1;
            else if (!strcmp(name, "sqlite-page-cache")) v->sqlitePageCache = 1;
            else if (!strcmp(name, "sqlite-wal-writes")) v->sqliteWALWrites = 1;
            else if (!strcmp(name, "events-without-rowid")) v->eventsWithoutRowid = 1;
            else if (!strcmp(name, "no-events-created")) v->noEventsCreated = 1;
            else if (!strcmp(name, "no-events")) v->noEvents = 1;
            else if (!strcmp(name, "no-context")) v->noContext = 1;
            else if (!strcmp(name, "shared-payload")) v->shared = 1;
            else if (!strcmp(name, "shared-payload-indexed")) v->shared = v->sharedIndex = 1;
            else if (!strncmp(name, "page-", 5)) v->pageSize = atoi(name + 5);
            else if (!strncmp(name, "batch-", 6)) v->batch = atoi(name + 6);
            else { fprintf(stderr, "unknown variant %s\n", name); return 2; }
        }
    }
    if (getenv("BATCH")) BATCH = atoi(getenv("BATCH"));
    if (parley_sqlite3_install_page_cache() != SQLITE_OK) { fprintf(stderr, "cannot install the page cache\n"); return 1; }
    if (parley_sqlite3_register_wal_vfs() != SQLITE_OK) { fprintf(stderr, "cannot register the WAL VFS\n"); return 1; }
    makePeople();
    long warmup = getenv("WARMUP") ? atol(getenv("WARMUP")) : 20000, messages = getenv("MESSAGES") ? atol(getenv("MESSAGES")) : 30000;
    for (int i = 0; i < count; i++) {
        Replay *replay = &replays[i];
        char path[4096];
        snprintf(path, sizeof path, "%s/replay-%d.sqlite", argv[2], i);
        parley_sqlite3_page_cache_remaps(!replay->sqlitePageCache);
        int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
        if (sqlite3_open_v2(path, &replay->db, flags, replay->sqliteWALWrites ? 0 : PARLEY_WAL_VFS) != SQLITE_OK) { fprintf(stderr, "cannot open %s\n", path); return 1; }
        use(replay);
        replay->random = 1;
        /* The writer's settings (SQLiteEngine); the WAL is not checkpointed while timing. */
        if (replay->pageSize) { char pragma[64]; snprintf(pragma, sizeof pragma, "PRAGMA page_size=%d", replay->pageSize); script(pragma); }
        script("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-65536; "
               "PRAGMA temp_store=MEMORY; PRAGMA wal_autocheckpoint=0;");
        char *tables = schemaFor(schema, replay);
        script(tables);
        free(tables);
        if (replay->shared) {
            script("CREATE TABLE event_bodies (id INTEGER PRIMARY KEY, type TEXT NOT NULL, payload TEXT NOT NULL, created_at INTEGER NOT NULL, except_session TEXT);"
                   "CREATE TABLE user_event_refs (user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE, seq INTEGER NOT NULL, body INTEGER NOT NULL, PRIMARY KEY (user_id, seq)) WITHOUT ROWID;");
            if (replay->sharedIndex) script("CREATE INDEX user_event_refs_body ON user_event_refs (body)");
        }
        seed();
        prepareSend(replay);
        sendBatches(replay, warmup);
        script("PRAGMA wal_checkpoint(TRUNCATE)");
    }
    /* A batch each in turn. */
    for (long done = 0; done < messages; done += BATCH) {
        for (int i = 0; i < count; i++) {
            use(&replays[i]);
            double started = threadSeconds();
            sendBatches(&replays[i], BATCH);
            replays[i].seconds += threadSeconds() - started;
        }
    }
    long timed = (messages + BATCH - 1) / BATCH * BATCH;
    for (int i = 0; i < count; i++) {
        double each = replays[i].seconds / timed * 1e6, shipped = replays[0].seconds / timed * 1e6;
        printf("%-40s %6.1f µs of CPU a message", replays[i].name, each);
        if (i) printf("  (%+.1f %% against the shipped statements)", (each / shipped - 1) * 100);
        printf("\n");
    }
    return 0;
}
