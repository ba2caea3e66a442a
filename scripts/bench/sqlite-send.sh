#!/usr/bin/env bash
# What SQLite's writer spends on one chat message, without Parley's Swift around it: a fresh
# `parley` (release build) creates its schema, which is read back from the file; then
# scripts/bench/sqlite-send.c replays the send's statements against the same library — the
# shipped ones and each variant given, a batch each in turn in one process, so that the machine's
# drift (10–20 % between runs here) falls on all alike — `--rounds` times.
# usage: scripts/bench/sqlite-send.sh [--rounds 3] [variant[+variant…]…]   (variants: see sqlite-send.c)
# env: PARLEY_BIN (a folder with a built `parley`; default .build-release/release)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=3 variants=()
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        *) variants+=("$1"); shift ;;
    esac
done
[ -f /usr/include/sqlite3.h ] || apt-get install -y -q libsqlite3-dev > /dev/null
default_port=18386
. scripts/bench/server.sh
start
stop
sqlite3 "$work/data/parley.sqlite" .schema | grep -v '^CREATE TABLE sqlite_' > "$work/schema.sql" 2>/dev/null \
    || python3 -c "import sqlite3,sys; print(';\n'.join(r[0] for r in sqlite3.connect(sys.argv[1]).execute(\"SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid\")) + ';')" "$work/data/parley.sqlite" > "$work/schema.sql"
gcc -O2 -o "$work/sqlite-send" -I Sources/CParleySQLite/include scripts/bench/sqlite-send.c Sources/CParleySQLite/PageCache.c Sources/CParleySQLite/WALWrites.c -lsqlite3
for round in $(seq 1 "$rounds"); do
    echo "round $round:"
    rm -rf "$work/replay" && mkdir "$work/replay"
    "$work/sqlite-send" "$work/schema.sql" "$work/replay" ${variants[@]+"${variants[@]}"}
done
