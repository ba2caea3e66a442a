#!/usr/bin/env python3
"""What a failed `swift test` run comes to, in a few lines for the end of the log.

Reads the run's output (a file, or standard input) and prints: the tests that failed and the
issues they recorded; for a crash, the crash line and the crashed thread's frames, and the
tests that had started but not ended (one of them is where it happened). CI shows only the
tail of a run, and a crash's backtrace is long; this is what the tail should say.

`test-digest.py --failed-suites LOG` prints the failed suites' names, one a line, for
scripts/test.sh to run them again alone (nothing when the run crashed).
"""
import glob
import os
import re
import sys

STARTED = re.compile(r"^\S+ Test (.+?) started\.$")
ENDED = re.compile(r"^\S+ Test (.+?) (?:passed|failed|skipped)\b")
ISSUE = re.compile(r"^\S+ Test .+? recorded an issue")
FAILED = re.compile(r"^\S+ Test .+? failed after")
XCT_FAILURE = re.compile(r": error: -\[.+\] : ")
SUITE_FAILED = re.compile(r'^\S+ Suite (?:"(.+)"|(\w+)) failed after')
SUITE_NAMED = re.compile(r'@Suite\(\s*"((?:[^"\\]|\\.)*)"')
DECLARED = re.compile(r"\b(?:struct|class|enum|actor)\s+(\w+)")


def digest(lines):
    running, failures, crash = {}, [], []
    in_crash = False
    for number, raw in enumerate(lines):
        line = raw.rstrip("\n")
        started = STARTED.match(line)
        if started:
            running[started.group(1)] = number
            continue
        ended = ENDED.match(line)
        if ended:
            running.pop(ended.group(1), None)
        if ISSUE.match(line) or FAILED.match(line) or XCT_FAILURE.search(line):
            failures.append(line[:400])
        if "Program crashed" in line or line.startswith("Fatal error") or "Fatal error:" in line:
            in_crash = True
        if in_crash and len(crash) < 60:
            if line.startswith("Registers") or line.startswith("Images"):
                in_crash = False
            else:
                crash.append(line[:300])
    out = []
    if failures:
        out.append("failed:")
        out.extend("  " + f for f in failures[:40])
    if crash:
        out.append("crash:")
        out.extend("  " + c for c in crash)
        if running:
            out.append("running when it crashed:")
            out.extend("  " + name for name in sorted(running, key=running.get)[-30:])
    return out


def suite_types(root):
    """Display name → type name of every suite declared `@Suite("…")` under `root` (the
    output names such a suite by its display name; `--filter` wants the type)."""
    names = {}
    for path in glob.glob(os.path.join(root, "**", "*.swift"), recursive=True):
        source = open(path, errors="replace").read()
        for named in SUITE_NAMED.finditer(source):
            declared = DECLARED.search(source, named.end())
            if declared:
                names[named.group(1).replace('\\"', '"').replace("\\\\", "\\")] = declared.group(1)
    return names


def failed_suites(lines, tests="Tests"):
    """The suites that failed, by type name — or nothing when the run crashed, a failure belongs
    to no suite, or a failed suite's type cannot be found (then nothing is run again: the run
    fails as it stands)."""
    suites, crashed, issues, unknown = [], False, 0, False
    types = None
    for raw in lines:
        line = raw.rstrip("\n")
        if "Program crashed" in line or "Fatal error:" in line or line.startswith("Fatal error"):
            crashed = True
        if XCT_FAILURE.search(line):
            crashed = True   # an XCTest failure: not a Swift Testing suite to filter on
        failed = SUITE_FAILED.match(line)
        if failed:
            name = failed.group(2)
            if failed.group(1) is not None:
                types = suite_types(tests) if types is None else types
                name = types.get(failed.group(1))
                unknown = unknown or name is None
            if name and name not in suites:
                suites.append(name)
        if ISSUE.match(line):
            issues += 1
    return [] if crashed or unknown or (issues and not suites) else suites


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--failed-suites":
        print("\n".join(failed_suites(open(sys.argv[2], errors="replace"))))
        return
    source = open(sys.argv[1], errors="replace") if len(sys.argv) > 1 else sys.stdin
    out = digest(source)
    print("==== digest of the failed run ====")
    print("\n".join(out) if out else "(no failed test or crash found in the output)")


if __name__ == "__main__":
    main()
