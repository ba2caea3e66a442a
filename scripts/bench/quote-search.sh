#!/usr/bin/env bash
# Quote search as you type on 100 000 quotes: starts a fresh `parley` (release build), makes two
# viewers through POST /admin/users, stops it, seeds 1 000 people and the quotes straight into its
# SQLite file (the FTS5 index is kept by triggers, as for quotes added through the API; who may
# see each quote goes into quote_audience as the store writes it), starts it again and times
# GET /v1/quotes/search?query= end to end (HTTP on 127.0.0.1, one keep-alive connection, one
# query at a time). Queries are typed a character at a time from phrases of quotes the viewer
# may see (hits) and of quotes they may not (misses), every prefix one request, as an app sends
# them; every answer must hold the text typed and only quotes that viewer may see. The heavy
# viewer may see 3% of all quotes (3 000 of 100 000: past quotes.searchScanLimit, so the FTS5
# trigram index answers); the light one 0.3% (300: their own quotes are read).
# usage: scripts/bench/quote-search.sh [--quotes 100000] [--phrases 300]
# env: PARLEY_BIN (a folder with a built `parley`; default .build-release/release)
set -euo pipefail
cd "$(dirname "$0")/../.."
quotes=100000 phrases=300
while [ $# -gt 0 ]; do
    case $1 in
        --quotes) quotes=$2; shift 2 ;;
        --phrases) phrases=$2; shift 2 ;;
        *) echo "usage: scripts/bench/quote-search.sh [--quotes N] [--phrases N]"; exit 2 ;;
    esac
done
default_port=18384
. scripts/bench/server.sh

start
created=$(curl -fs -X POST "http://127.0.0.1:$port/admin/users" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d '{"users":[{"name":"Heavy Viewer","email":"heavy@bench.test","password":"bench-password-1"},
                  {"name":"Light Viewer","email":"light@bench.test","password":"bench-password-1"}],"sessions":true}')
field() { echo "$created" | python3 -c "import json,sys; print(json.load(sys.stdin)['users'][$1]['$2'])"; }
heavy_token=$(field 0 accessToken) heavy_id=$(field 0 id) light_token=$(field 1 accessToken) light_id=$(field 1 id)
stop

echo "seeding $quotes quotes…"
python3 - "$work/data/parley.sqlite" "$quotes" "$heavy_id" "$light_id" "$phrases" "$work" <<'PY'
import random, sqlite3, sys, time
path, count, heavy, light, phrase_count, work = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
random.seed(3)
words = ("the a to of and I you it that was we he she they said never always why what when coffee dinner "
         "tomorrow yesterday tonight kitchen office meeting train airport weekend holiday birthday party "
         "pancakes spreadsheet umbrella penguin bicycle mountain karaoke lasagna dinosaur saxophone "
         "invoice sandwich garden marathon telescope wardrobe volcano cucumber trombone carousel "
         "honestly literally basically definitely probably absolutely obviously apparently seriously "
         "forget remember believe imagine promise explain borrow return cancel finish start "
         "everyone nobody somebody mother father brother sister neighbour landlord dentist plumber "
         "purple enormous tiny ancient brilliant terrible wonderful ridiculous suspicious gorgeous").split()
db = sqlite3.connect(path)
db.execute("PRAGMA journal_mode=WAL")
now = 1795340000000
people = [(f"seed-{i:05d}", f"+1555{i:07d}") for i in range(1000)]
db.executemany("""INSERT INTO users (id, email, phone_number, name, name_key, status, password_hash, date_of_birth,
    avatar_hash, email_verified_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, '', 'x', '', NULL, ?, ?, ?)""",
    [(uid, "phone:" + num, num, f"Person {i}", f"person {i}", now, now, now) for i, (uid, num) in enumerate(people)])
viewers = {heavy: 0.03, light: 0.003}
seen = {v: [] for v in viewers}
unseen = {v: [] for v in viewers}
visible_ids = {v: [] for v in viewers}
began = time.time()
for q in range(count):
    text = " ".join(random.choice(words) for _ in range(random.randint(5, 25)))
    text = text[0].upper() + text[1:] + random.choice([".", "!", "?"])
    cursor = db.execute("INSERT INTO quotes (id, text, added_by, created_at) VALUES (?, ?, ?, ?)",
                        (f"quote-{q:07d}", text, None, now + q))
    seq = cursor.lastrowid
    group = random.sample(people, random.randint(2, 4))
    rows = [(seq, pos, "said" if pos == 0 else "heard", num, uid, f"Book name {uid[-5:]}") for pos, (uid, num) in enumerate(group)]
    db.executemany("INSERT INTO quote_people (quote_seq, position, role, phone_number, user_id, book_name) VALUES (?, ?, ?, ?, ?, ?)", rows)
    audience = {uid for uid, _ in group}
    for viewer, share in viewers.items():
        if random.random() < share:
            audience.add(viewer)
            seen[viewer].append(text)
            visible_ids[viewer].append(f"quote-{q:07d}")
        else:
            unseen[viewer].append(text)
    db.executemany("INSERT INTO quote_audience (user_id, quote_seq) VALUES (?, ?)", [(u, seq) for u in audience])
    db.execute("UPDATE quotes SET added_by = ? WHERE seq = ?", (group[0][0], seq))
db.commit()
print(f"seeded in {time.time() - began:.1f} s; the heavy viewer may see {len(seen[heavy])}, the light one {len(seen[light])} of {count}")
for name, viewer in (("heavy", heavy), ("light", light)):
    open(f"{work}/{name}.visible", "w").write("\n".join(visible_ids[viewer]))
    with open(f"{work}/{name}.tsv", "w") as f:
        for kind, pool in (("hit", seen[viewer]), ("miss", unseen[viewer])):
            for text in random.sample(pool, min(phrase_count // 2, len(pool))):
                tokens = text.rstrip(".!?").split()
                start = random.randrange(len(tokens))
                phrase = " ".join(tokens[start:start + random.randint(1, 3)]).lower()
                f.write(f"{kind}\t{phrase[:14]}\n")
PY
start

for who in heavy light; do
token_var=${who}_token
echo "$who viewer:"
python3 - "$port" "${!token_var}" "$work/$who.tsv" "$work/$who.visible" <<'PY'
import http.client, json, sys, time, urllib.parse
port, token, phrases = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rows = [line.rstrip("\n").split("\t") for line in open(phrases)]
visible = set(open(sys.argv[4]).read().split())
connection = http.client.HTTPConnection("127.0.0.1", port)
def search(query):
    began = time.perf_counter()
    connection.request("GET", "/v1/quotes/search?limit=20&query=" + urllib.parse.quote(query), headers={"Authorization": "Bearer " + token})
    reply = connection.getresponse()
    body = reply.read()
    elapsed = (time.perf_counter() - began) * 1000
    if reply.status != 200:
        sys.exit(f"bench: {query!r} answered {reply.status}: {body[:200]!r}")
    return elapsed, json.loads(body)["quotes"]
def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]
for _, phrase in rows[:20]:
    search(phrase)   # warm the caches and the connection
times = {"all": [], "1-2 chars": [], "3+ chars": [], "hit": [], "miss": []}
found_whole = 0
for kind, phrase in rows:
    for n in range(1, len(phrase) + 1):
        typed = phrase[:n]
        if typed.endswith(" "):
            continue
        elapsed, quotes = search(typed)
        times["all"].append(elapsed)
        times["1-2 chars" if n < 3 else "3+ chars"].append(elapsed)
        times[kind].append(elapsed)
        if any(typed.lower() not in q["text"].lower() for q in quotes):
            sys.exit(f"bench: a result for {typed!r} does not hold it")
        if any(q["id"] not in visible for q in quotes):
            sys.exit(f"bench: {typed!r} found a quote the viewer may not see")
    if kind == "hit" and quotes:
        found_whole += 1
hits = sum(1 for kind, _ in rows if kind == "hit")
print(f"{len(rows)} phrases typed a character at a time: {len(times['all'])} requests; {found_whole} of {hits} phrases the viewer may see were found")
for kind in ("all", "3+ chars", "1-2 chars", "hit", "miss"):
    v = times[kind]
    if v:
        print(f"  {kind:10} n={len(v):5}  p50 {pct(v, 50):6.2f} ms  p95 {pct(v, 95):6.2f} ms  p99 {pct(v, 99):6.2f} ms  max {max(v):7.2f} ms")
PY
done
