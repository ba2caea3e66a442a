#!/usr/bin/env bash
# User search on 1 000 000 accounts: starts a fresh `parley` (release build), makes the viewer through
# POST /admin/users, stops it, seeds the accounts straight into its SQLite file (the search index is
# kept by triggers, as for accounts made through the API), starts it again and times
# GET /v1/users?query= end to end (HTTP on 127.0.0.1, one keep-alive connection, one query at a
# time) over queries typed from the seeded names: parts of names (3–8 characters), whole names,
# whole addresses; two-letter queries (what a search box sends first: names, or words in them,
# that start with them) are timed apart, as their own class.
# usage: scripts/bench/user-search.sh [--accounts 1000000] [--queries 2000]
# env: PARLEY_BIN (a folder with a built `parley`; default .build-release/release)
set -euo pipefail
cd "$(dirname "$0")/../.."
accounts=1000000 queries=2000
while [ $# -gt 0 ]; do
    case $1 in
        --accounts) accounts=$2; shift 2 ;;
        --queries) queries=$2; shift 2 ;;
        *) echo "usage: scripts/bench/user-search.sh [--accounts N] [--queries N]"; exit 2 ;;
    esac
done
default_port=18383
. scripts/bench/server.sh

start
viewer=$(curl -fs -X POST "http://127.0.0.1:$port/admin/users" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d '{"users":[{"name":"Bench Viewer","email":"viewer@bench.test","password":"bench-password-1"}],"sessions":true}' \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["users"][0]["accessToken"])')
stop

echo "seeding $accounts accounts…"
seconds=$( { /usr/bin/time -f %e sqlite3 "$work/data/parley.sqlite" > /dev/null <<SQL
PRAGMA journal_mode=WAL;
PRAGMA cache_size=-400000;
CREATE TEMP TABLE firsts (k INTEGER PRIMARY KEY, v TEXT);
INSERT INTO firsts (v) VALUES ('Anna'),('Ben'),('Carla'),('David'),('Elena'),('Farid'),('Greta'),('Hugo'),('Ines'),('Jonas'),
 ('Karin'),('Liam'),('Mara'),('Nils'),('Olga'),('Pavel'),('Quinn'),('Rosa'),('Sven'),('Tara'),('Ugo'),('Vera'),('Wim'),('Xenia'),
 ('Yusuf'),('Zoe'),('Amir'),('Bea'),('Chen'),('Dana'),('Emil'),('Fatima'),('Gil'),('Hana'),('Ivan'),('Jana'),('Kai'),('Lea'),
 ('Milo'),('Nora'),('Omar'),('Pia'),('Ravi'),('Sara'),('Tom'),('Uma'),('Vito'),('Wanda'),('Yara'),('Zeno'),('Ann'),('Bo'),
 ('Cleo'),('Dario'),('Edda'),('Finn'),('Gaia'),('Hans'),('Ida'),('Jules'),('Kira'),('Lars'),('Mia'),('Noah'),('Oona'),('Per');
CREATE TEMP TABLE syllables (k INTEGER PRIMARY KEY, v TEXT);
INSERT INTO syllables (v) VALUES ('ka'),('ri'),('mo'),('len'),('sa'),('to'),('vi'),('ne'),('bor'),('lu'),('an'),('de'),('gra'),
 ('hol'),('in'),('jor'),('ke'),('ma'),('nu'),('os'),('pe'),('qui'),('ra'),('sel'),('tu'),('ul'),('va'),('wen'),('xa'),('yo'),
 ('zi'),('berg'),('son'),('ova'),('ini'),('ez'),('mann'),('sky'),('ard'),('ley');
-- The names in a table first: a CTE read twice (name, then lower(name)) would draw random() twice.
CREATE TEMP TABLE named AS
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $accounts - 1),
drawn AS (
  SELECT i,
    (SELECT v FROM firsts WHERE k = 1 + (i * 7 + abs(random())) % 66) || ' ' ||
    (SELECT upper(substr(v, 1, 1)) || substr(v, 2) FROM syllables WHERE k = 1 + (i + abs(random())) % 40) ||
    (SELECT v FROM syllables WHERE k = 1 + (i * 3 + abs(random())) % 40) ||
    (SELECT v FROM syllables WHERE k = 1 + (i * 5 + abs(random())) % 40) AS name
  FROM n)
SELECT i, name FROM drawn;
INSERT INTO users (id, email, name, name_key, status, password_hash, date_of_birth, avatar_hash, email_verified_at, created_at, updated_at)
SELECT printf('seed-%07d', i), printf('user%d@seed.test', i), name, lower(name), '', 'x', '1990-01-01', NULL,
       1795340000000, 1795340000000, 1795340000000
FROM named;
SQL
} 2>&1 | tail -1)
echo "seeded in ${seconds} s"
[ "$(sqlite3 "$work/data/parley.sqlite" "SELECT COUNT(*) FROM users WHERE name_key <> lower(name)")" = 0 ] \
    || { echo "bench: seeded name keys are not the names"; exit 1; }
sqlite3 "$work/data/parley.sqlite" "SELECT name || char(9) || email FROM users WHERE id LIKE 'seed-%' ORDER BY random() LIMIT $queries" > "$work/sample.tsv"
start

python3 - "$port" "$viewer" "$work/sample.tsv" <<'PY'
import http.client, json, random, sys, time, urllib.parse
port, token, sample = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rows = [line.rstrip("\n").split("\t") for line in open(sample)]
random.seed(14)
queries, short = [], []
for name, email in rows:
    pick = random.random()
    if pick < 0.1:
        queries.append(("address", email))
    elif pick < 0.2:
        queries.append(("name", name))
    else:
        n = random.randint(3, min(8, len(name)))
        start = random.randint(0, len(name) - n)
        queries.append(("part", name[start:start + n].strip() or name))
    start = random.randint(0, len(name) - 2)
    if len(short) < 200 and " " not in name[start:start + 2]:
        short.append(("two letters", name[start:start + 2]))
connection = http.client.HTTPConnection("127.0.0.1", port)
def run(batch):
    times, found = {}, 0
    for kind, query in batch:
        path = "/v1/users?limit=20&query=" + urllib.parse.quote(query)
        began = time.perf_counter()
        connection.request("GET", path, headers={"Authorization": "Bearer " + token})
        reply = connection.getresponse()
        body = reply.read()
        elapsed = (time.perf_counter() - began) * 1000
        if reply.status != 200:
            sys.exit(f"bench: {query!r} answered {reply.status}: {body[:200]!r}")
        users = json.loads(body)["users"]
        found += 1 if users else 0
        times.setdefault(kind, []).append(elapsed)
        times.setdefault("all", []).append(elapsed)
    return times, found
def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]
run(queries[:50])   # warm the caches and the connection
times, found = run(queries)
print(f"{len(queries)} queries, {found} with results")
for kind in ("all", "part", "name", "address"):
    v = times.get(kind, [])
    if v:
        print(f"  {kind:8} n={len(v):5}  p50 {pct(v, 50):6.2f} ms  p95 {pct(v, 95):6.2f} ms  p99 {pct(v, 99):6.2f} ms  max {max(v):7.2f} ms")
times, _ = run(short)
v = times["two letters"]
print(f"  two letters n={len(v):3}  p50 {pct(v, 50):6.2f} ms  p95 {pct(v, 95):6.2f} ms  p99 {pct(v, 99):6.2f} ms  max {max(v):7.2f} ms  (the start of a name or of a word in it)")
PY
