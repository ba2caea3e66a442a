/* The statements SQLite's writer runs for one chat message, replayed in C against the same
 * library, without Parley's Swift around them: what the store costs by itself, and how a change
 * to the statements or the schema moves it. The chat load test's shape: 1 000 users, each in one
 * private dialog and one group of 5, friends in groups of 20; a batch of 256 messages a
 * transaction (group commit), each message the send context's reads (dialog and request,
 * members, blockers, and for a private dialog the block and friendship toward the other), the
 * message's row (looked for under its client id, the counter moved, the row inserted), the
 * sender's membership, the recipients' heads moved on and their events inserted.
 * usage: sqlite-send SCHEMA.sql DATABASE [variant…]; variants: savepoints (a savepoint per
 *   message), folded-insert (the row inserted from the dialog's counter, ON CONFLICT DO NOTHING
 *   RETURNING seq, then the counter set), members-order (ORDER BY joined_at, user_id in SQL).
 * env: WARMUP (messages before the timing, 20 000), MESSAGES (timed, 30 000).
 * Prints the writer thread's CPU time per message. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define USERS 1000
#define DIALOGS 700
#define BATCH 256
#define NOW 1700000000000LL

static sqlite3 *db;
static int savepoints, folded, membersOrder;
static char users[USERS][37], dialogs[DIALOGS][37];
static int isGroup[DIALOGS], members[DIALOGS][5], memberCount[DIALOGS], dialogsOf[USERS][2];
static long sent;
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

static sqlite3_stmt *dialogRead, *membersRead, *blockersRead, *towardRead, *existingRead, *counterMove, *messageInsert,
    *foldedInsert, *counterSet, *membershipUpdate, *headsUpsert[6], *eventsInsert[6], *savepoint, *release, *begin, *commit;

static void send(int user, int dialog) {
    char clientID[32], id[40];
    sent++;
    sprintf(clientID, "c-%ld", sent);
    sprintf(id, "%012lx-0000-7000-8000-000000000000", sent);
    const char *me = users[user], *in = dialogs[dialog];
    text(dialogRead, 1, in); run(dialogRead, -1);
    text(membersRead, 1, in); run(membersRead, -1);
    text(blockersRead, 1, me); run(blockersRead, -1);
    if (!isGroup[dialog]) {
        const char *other = users[members[dialog][0] == user ? members[dialog][1] : members[dialog][0]];
        int lowFirst = strcmp(me, other) < 0;
        text(towardRead, 1, me); text(towardRead, 2, other);
        text(towardRead, 3, lowFirst ? me : other); text(towardRead, 4, lowFirst ? other : me);
        run(towardRead, -1);
    }
    long long seq;
    if (folded) {
        sqlite3_stmt *s = foldedInsert;
        text(s, 1, id); text(s, 2, me); text(s, 3, clientID); text(s, 4, "text"); text(s, 5, "hello there");
        for (int i = 6; i <= 9; i++) sqlite3_bind_null(s, i);
        integer(s, 10, NOW); text(s, 11, in);
        seq = run(s, 0);
        integer(counterSet, 1, seq); integer(counterSet, 2, NOW); text(counterSet, 3, in); run(counterSet, -1);
    } else {
        text(existingRead, 1, in); text(existingRead, 2, me); text(existingRead, 3, clientID); run(existingRead, -1);
        integer(counterMove, 1, NOW); text(counterMove, 2, in);
        seq = run(counterMove, 0);
        sqlite3_stmt *s = messageInsert;
        text(s, 1, id); text(s, 2, in); integer(s, 3, seq); text(s, 4, me); text(s, 5, clientID); text(s, 6, "text");
        text(s, 7, "hello there");
        for (int i = 8; i <= 11; i++) sqlite3_bind_null(s, i);
        integer(s, 12, NOW);
        run(s, -1);
    }
    text(membershipUpdate, 1, me); integer(membershipUpdate, 2, seq); text(membershipUpdate, 3, in); text(membershipUpdate, 4, me);
    run(membershipUpdate, -1);
    int n = memberCount[dialog], recipients[5];
    long long numbers[5] = {0};
    memcpy(recipients, members[dialog], sizeof(int) * n);
    qsort(recipients, n, sizeof(int), byID);
    sqlite3_stmt *heads = headsUpsert[n], *events = eventsInsert[n];
    for (int i = 0; i < n; i++) text(heads, i + 1, users[recipients[i]]);
    int code;
    while ((code = sqlite3_step(heads)) == SQLITE_ROW) {
        const char *who = (const char *)sqlite3_column_text(heads, 0);
        for (int i = 0; i < n; i++) if (!strcmp(who, users[recipients[i]])) numbers[i] = sqlite3_column_int64(heads, 1);
    }
    if (code != SQLITE_DONE) fail("heads");
    sqlite3_reset(heads);
    sqlite3_clear_bindings(heads);
    for (int i = 0; i < n; i++) {
        text(events, 6 * i + 1, users[recipients[i]]); integer(events, 6 * i + 2, numbers[i]); text(events, 6 * i + 3, "message.new");
        text(events, 6 * i + 4, payload); integer(events, 6 * i + 5, NOW); sqlite3_bind_null(events, 6 * i + 6);
    }
    run(events, -1);
}

static void sendBatches(long count) {
    for (long done = 0; done < count;) {
        run(begin, -1);
        for (int i = 0; i < BATCH; i++, done++) {
            int user = rand() % USERS;
            if (savepoints) run(savepoint, -1);
            send(user, dialogsOf[user][rand() % 2]);
            if (savepoints) run(release, -1);
        }
        run(commit, -1);
    }
}

static void seed(void) {
    script("BEGIN");
    sqlite3_stmt *user = prepare("INSERT INTO users (id, email, name, name_key, status, password_hash, date_of_birth, created_at, updated_at) "
                                 "VALUES (?, ?, 'n', 'n', 'active', 'x', '2000-01-01', 0, 0)");
    for (int i = 0; i < USERS; i++) {
        char email[32];
        uuid(users[i]); sprintf(email, "u%d@bench.test", i);
        text(user, 1, users[i]); text(user, 2, email); run(user, -1);
    }
    sqlite3_stmt *friends = prepare("INSERT INTO friendships (user_low, user_high, created_at) VALUES (?, ?, 0)");
    for (int group = 0; group < USERS; group += 20)
        for (int a = group; a < group + 20; a++)
            for (int b = a + 1; b < group + 20; b++) {
                int lowFirst = strcmp(users[a], users[b]) < 0;
                text(friends, 1, users[lowFirst ? a : b]); text(friends, 2, users[lowFirst ? b : a]); run(friends, -1);
            }
    int count = 0;
    for (int k = 0; k < USERS; k += 2, count++) {
        memberCount[count] = 2; members[count][0] = k; members[count][1] = k + 1;
        dialogsOf[k][0] = dialogsOf[k + 1][0] = count;
    }
    for (int first = 0; first < USERS; first += 5, count++) {
        isGroup[count] = 1; memberCount[count] = 5;
        for (int j = 0; j < 5; j++) { members[count][j] = first + j; dialogsOf[first + j][1] = count; }
    }
    sqlite3_stmt *dialog = prepare("INSERT INTO dialogs (id, type, created_by, created_at, updated_at, last_message_seq) VALUES (?, ?, ?, 0, 0, 0)");
    sqlite3_stmt *member = prepare("INSERT INTO dialog_members (dialog_id, user_id, joined_at, read_seq, cleared_seq, hidden) VALUES (?, ?, 0, 0, 0, 0)");
    for (int d = 0; d < DIALOGS; d++) {
        uuid(dialogs[d]);
        text(dialog, 1, dialogs[d]); text(dialog, 2, isGroup[d] ? "group" : "private"); text(dialog, 3, users[members[d][0]]); run(dialog, -1);
        for (int j = 0; j < memberCount[d]; j++) { text(member, 1, dialogs[d]); text(member, 2, users[members[d][j]]); run(member, -1); }
    }
    script("COMMIT");
}

static void prepareSend(void) {
    dialogRead = prepare("SELECT d.id, d.type, d.name, d.avatar_attachment_id, d.created_by, d.owner_id, d.created_at, d.updated_at, "
                         "d.last_message_seq, r.dialog_id AS request_dialog_id, r.from_user, r.to_user, r.status, r.first_seq, r.created_at "
                         "FROM dialogs d LEFT JOIN message_requests r ON r.dialog_id = d.id WHERE d.id = ?");
    membersRead = prepare(membersOrder
        ? "SELECT dialog_id, user_id, joined_at, read_seq, cleared_seq, hidden FROM dialog_members WHERE dialog_id = ? ORDER BY joined_at, user_id"
        : "SELECT dialog_id, user_id, joined_at, read_seq, cleared_seq, hidden FROM dialog_members WHERE dialog_id = ?");
    blockersRead = prepare("SELECT blocker FROM blocks WHERE blocked = ?");
    towardRead = prepare("SELECT EXISTS (SELECT 1 FROM blocks WHERE blocker = ? AND blocked = ?) AS blocks_other, "
                         "EXISTS (SELECT 1 FROM friendships WHERE user_low = ? AND user_high = ?) AS friends");
    const char *columns = "id, dialog_id, seq, sender_id, client_message_id, kind, text, attachment_id, call, location, forwarded_from, created_at";
    char sql[4096];
    sprintf(sql, "SELECT %s FROM messages WHERE dialog_id = ? AND sender_id = ? AND client_message_id = ?", columns);
    existingRead = prepare(sql);
    counterMove = prepare("UPDATE dialogs SET last_message_seq = last_message_seq + 1, updated_at = ? WHERE id = ? RETURNING last_message_seq");
    sprintf(sql, "INSERT INTO messages (%s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", columns);
    messageInsert = prepare(sql);
    sprintf(sql, "INSERT INTO messages (%s) SELECT ?, id, last_message_seq + 1, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM dialogs WHERE id = ? "
                 "ON CONFLICT (dialog_id, sender_id, client_message_id) DO NOTHING RETURNING seq", columns);
    foldedInsert = prepare(sql);
    counterSet = prepare("UPDATE dialogs SET last_message_seq = ?, updated_at = ? WHERE id = ?");
    membershipUpdate = prepare("UPDATE dialog_members SET hidden = 0, read_seq = CASE WHEN user_id = ? THEN ? ELSE read_seq END "
                               "WHERE dialog_id = ? AND (user_id = ? OR hidden <> 0)");
    for (int n = 2; n <= 5; n += 3) {
        strcpy(sql, "INSERT INTO user_event_heads (user_id, last_seq) VALUES ");
        for (int i = 0; i < n; i++) strcat(sql, i ? ", (?, 1)" : "(?, 1)");
        strcat(sql, " ON CONFLICT (user_id) DO UPDATE SET last_seq = user_event_heads.last_seq + 1 RETURNING user_id, last_seq");
        headsUpsert[n] = prepare(sql);
        strcpy(sql, "INSERT INTO user_events (user_id, seq, type, payload, created_at, except_session) VALUES ");
        for (int i = 0; i < n; i++) strcat(sql, i ? ", (?, ?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?, ?)");
        eventsInsert[n] = prepare(sql);
    }
    savepoint = prepare("SAVEPOINT job"); release = prepare("RELEASE job");
    begin = prepare("BEGIN IMMEDIATE"); commit = prepare("COMMIT");
}

static double threadSeconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: sqlite-send SCHEMA.sql DATABASE [savepoints|folded-insert|members-order]…\n"); return 2; }
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "savepoints")) savepoints = 1;
        else if (!strcmp(argv[i], "folded-insert")) folded = 1;
        else if (!strcmp(argv[i], "members-order")) membersOrder = 1;
        else { fprintf(stderr, "unknown variant %s\n", argv[i]); return 2; }
    }
    FILE *file = fopen(argv[1], "r");
    if (!file) { perror(argv[1]); return 1; }
    static char schema[1 << 20];
    schema[fread(schema, 1, sizeof schema - 1, file)] = 0;
    fclose(file);
    srand(1);
    if (sqlite3_open(argv[2], &db) != SQLITE_OK) fail("open");
    /* The writer's settings (SQLiteEngine); the WAL is not checkpointed while timing. */
    script("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA cache_size=-65536; "
           "PRAGMA temp_store=MEMORY; PRAGMA wal_autocheckpoint=0;");
    script(schema);
    seed();
    prepareSend();
    long warmup = getenv("WARMUP") ? atol(getenv("WARMUP")) : 20000, count = getenv("MESSAGES") ? atol(getenv("MESSAGES")) : 30000;
    sendBatches(warmup);
    script("PRAGMA wal_checkpoint(TRUNCATE)");
    double started = threadSeconds();
    sendBatches(count);
    printf("%.1f µs of CPU a message (%ld messages after %ld)\n", (threadSeconds() - started) / count * 1e6, count, warmup);
    return 0;
}
