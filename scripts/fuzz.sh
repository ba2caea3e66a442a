#!/usr/bin/env bash
# libFuzzer over Parley's wire parsers: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags…]
#   TARGET: stun rtp rtcp sdp dtls multipart command media, or all (each in turn for SECONDS).
# Builds fuzz/ (one program, parley-fuzz) with -sanitize=fuzzer,address into .build-fuzz, apart
# from the debug build. Seeds: fuzz/seeds/TARGET plus the repo's fixtures; inputs that find new
# coverage collect in .build-fuzz/corpus/TARGET; a crash is written to .build-fuzz/crashes/ and
# fails the run (turn it into a regression test beside the parser, then fix it).
set -euo pipefail
cd "$(dirname "$0")/.."
targets="stun rtp rtcp sdp dtls multipart command media"
if [ $# -lt 2 ]; then
    echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer flags…]   (TARGET: $targets, or all)" >&2
    exit 2
fi
target=$1; seconds=$2; shift 2
[ "$target" = all ] && run=$targets || run=$target

build_started=$(date +%s)
PARLEY_FUZZ=1 swift build --scratch-path .build-fuzz --product parley-fuzz \
    -Xswiftc -sanitize=fuzzer,address 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\] (Compiling|Write|Emitting)' || true
binary=.build-fuzz/debug/parley-fuzz
[ -x "$binary" ] || { echo "fuzz build failed" >&2; exit 1; }
echo "fuzz build: $(( $(date +%s) - build_started )) s"

status=0
for t in $run; do
    case " $targets " in *" $t "*) ;; *) echo "unknown target $t ($targets)" >&2; exit 2;; esac
    corpus=.build-fuzz/corpus/$t
    mkdir -p "$corpus" .build-fuzz/crashes
    seeds=()
    [ -d fuzz/seeds/$t ] && seeds+=(fuzz/seeds/$t)
    [ "$t" = sdp ] && seeds+=(Tests/ParleySDPTests/Fixtures)
    log=.build-fuzz/fuzz-$t.log
    # libFuzzer reports a crash itself; Swift's backtracer would only hold the run up.
    if SWIFT_BACKTRACE=enable=no PARLEY_FUZZ_TARGET=$t "$binary" -max_total_time="$seconds" -print_final_stats=1 -detect_leaks=0 \
        -artifact_prefix=.build-fuzz/crashes/$t- "$@" "$corpus" "${seeds[@]}" >"$log" 2>&1; then
        echo "fuzz $t: $(grep -m1 -o 'number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*') runs in ${seconds} s, corpus $(ls "$corpus" | wc -l) inputs, no crash"
    else
        status=1
        echo "fuzz $t: FAILED — the input is in .build-fuzz/crashes/; the report:" >&2
        grep -E -A30 'ERROR: |Fatal error|deadly signal' "$log" | head -60 >&2 || tail -40 "$log" >&2
    fi
done
exit $status
