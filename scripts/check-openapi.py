#!/usr/bin/env python3
"""Checks docs/openapi.yaml: a valid OpenAPI document, and in step with the server's routes.

1. Validates the document with openapi-spec-validator (OpenAPI 3.1).
2. Reads the routes registered in Sources/ParleyHTTP/*.swift and compares them with the
   document's paths and methods: every route must be documented, and every documented
   path/method must have a route.

Routes are found with regular expressions over the Swift source, the way ParleyRouter.swift
composes them:
  router.get("health") { … }                               -> GET /health
  XRoutes(…).add(to: router.group("v1/me")…)               -> XRoutes' `to` group is /v1/me
  YRoutes(…).add(a: router.group("v1/a")…, b: router.group("v1/b")…)   (several groups)
  inside `func add(to group: RouterGroup<…>, …)`:
    group.get(use: me)                                    -> GET /v1/me (the group's own path)
    group.put("avatar", use: setAvatar)                   -> PUT /v1/me/avatar
    group.get(":id", use: user)                           -> GET /v1/users/{id}
A registration the checker cannot place (a chained or nested group, a routes value kept in a
variable) fails the check instead of being skipped.
3. Compares the `ErrorCode` enum of the document with the error codes the server sends: every
   `code: "…"` and `rule("…", …)` literal in Sources/**/*.swift (the codes of `ParleyError` and
   its helpers, `MediaRelayError`, the realtime replies). Codes thrown only as
   `ParleyError(.internalFailure, code: …)` are configuration faults that stop the server from
   starting, not answers, and are left out (`internal_error` aside: it is any route's 500). A code missing on either side fails the check.
4. Reads docs/schemathesis.toml (the fuzzer's configuration, beside the spec): every status an
   `[[operations]]` entry lets a schema-valid request get (`expected-statuses`) must be a
   documented response of each operation it names, the operations must exist, and no check may be
   switched off for the whole run (only per operation).

The web client's routes (Sources/ParleyHTTP/WebClientRoutes.swift: `/` and the plain files under
`/web/`) are pages and scripts for a browser, not API operations: they are left out of the
comparison by name (WEB_CLIENT_ROUTES), and the check fails if that list stops matching what
WebClientRoutes.swift serves, so nothing else can hide behind it.

Needs: PyYAML, openapi-spec-validator. Exit 0 when all holds, 1 otherwise (with the reasons).
Usage: scripts/check-openapi.py [--root REPO] [--spec PATH]
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

METHODS = ("get", "post", "put", "patch", "delete", "head", "options", "trace")
METHOD_RE = "|".join(METHODS)

# A route registration: `recv.get(use: f)`, `recv.get("path", use: f)`, `recv.get("path") { … }`
# or `recv.get { … }`. The receiver is optional so that chained calls (`….group("x").get(…)`)
# are seen too, and reported as not understood.
REGISTRATION = re.compile(
    rf'(?:\b(\w+)\s*)?(\.)\s*({METHOD_RE})\s*(?:\(\s*(?:"([^"]*)"\s*,?\s*)?(?:use\s*:|\)\s*\{{)|\{{)')
ROUTER_VAR = re.compile(r'\blet\s+(\w+)\s*=\s*Router\s*\(')
TOP_LEVEL_TYPE = re.compile(
    r'^(?:(?:public|internal|fileprivate|private|final)\s+)*(?:struct|class|enum|extension)\s+(\w+)', re.M)
ADD_FUNC = re.compile(r'\bfunc\s+add\s*\(')
ADD_CALL = re.compile(r'\.\s*add\s*\(')
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
COMMENT_OR_STRING = re.compile(r'("(?:\\.|[^"\\\n])*")|//[^\n]*|/\*.*?\*/', re.S)


def strip_comments(text: str) -> str:
    """Drops // and /* */ comments, leaving string literals (which may hold "//") alone."""
    return COMMENT_OR_STRING.sub(lambda m: m.group(1) or "", text)


def normalize(*segments: str) -> str:
    parts = []
    for segment in segments:
        for part in segment.split("/"):
            if not part:
                continue
            if part.startswith(":"):
                part = "{" + part[1:] + "}"
            parts.append(part)
    return "/" + "/".join(parts)


def closing(text: str, index: int, pairs: str = "(){}[]") -> int:
    """Index of the bracket that closes the one at `index` (string literals are skipped)."""
    opens, closes = pairs[0::2], pairs[1::2]
    depth, position = 0, index
    while position < len(text):
        char = text[position]
        if char == '"':
            literal = STRING.match(text, position)
            position = literal.end() - 1 if literal else len(text)
        elif char in opens:
            depth += 1
        elif char in closes:
            depth -= 1
            if depth == 0:
                return position
        position += 1
    raise ValueError("unbalanced brackets")


def opening(text: str, index: int) -> int:
    """Index of the '(' that the ')' at `index` closes."""
    depth = 0
    for position in range(index, -1, -1):
        if text[position] == ")":
            depth += 1
        elif text[position] == "(":
            depth -= 1
            if depth == 0:
                return position
    raise ValueError("unbalanced parentheses")


def split_top_level(text: str) -> list[str]:
    """Splits an argument or parameter list on the commas outside (), [], {} and <>."""
    items, depth, current = [], 0, ""
    for char in text:
        if char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
        if char == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        items.append(current.strip())
    return items


class AddFunc:
    """`func add(to group: RouterGroup<…>, blocks: RouterGroup<…>) { … }` of a routes type."""

    def __init__(self, owner: str, labels: list[str], names: list[str], body_start: int, body_end: int):
        self.owner, self.labels, self.names = owner, labels, names
        self.body_start, self.body_end = body_start, body_end


def add_functions(name: str, text: str) -> tuple[list[AddFunc], list[str]]:
    problems, found = [], []
    types = [(m.start(), m.group(1)) for m in TOP_LEVEL_TYPE.finditer(text)]
    for m in ADD_FUNC.finditer(text):
        owner = [type_name for start, type_name in types if start < m.start()]
        params_end = closing(text, m.end() - 1)
        brace = text.index("{", params_end)
        labels, names = [], []
        for param in split_top_level(text[m.end():params_end]):
            head, _, type_text = param.partition(":")
            if "RouterGroup" not in type_text:
                continue
            words = head.split()
            labels.append(words[0])
            names.append(words[-1])
        if not owner:
            problems.append(f"{name}: `func add(…)` outside a type")
        elif names:
            found.append(AddFunc(owner[-1], labels, names, brace, closing(text, brace)))
    return found, problems


# Served for the browser, not part of the API (see the docstring).
WEB_CLIENT_FILE = "WebClientRoutes.swift"
WEB_CLIENT_ROUTES = {("GET", "/"), ("GET", "/web/settings.json"), ("GET", "/web/{name}"), ("GET", "/web/js/{name}")}


def server_routes(sources: Path) -> tuple[set[tuple[str, str]], list[str]]:
    """The (METHOD, /path) pairs the Swift sources register, and what could not be understood."""
    problems: list[str] = []
    files = sorted(sources.glob("*.swift"))
    if not files:
        return set(), [f"no Swift files in {sources}"]
    texts = {f.name: strip_comments(f.read_text(encoding="utf-8")) for f in files}

    funcs: dict[str, list[tuple[str, AddFunc]]] = {}
    for name, text in texts.items():
        found, trouble = add_functions(name, text)
        problems += trouble
        for func in found:
            funcs.setdefault(func.owner, []).append((name, func))

    routes: set[tuple[str, str]] = set()
    placed: set[tuple[str, int]] = set()   # registrations accounted for: (file, offset of the '.')
    mounted: set[int] = set()

    for name, text in texts.items():
        router_vars = set(ROUTER_VAR.findall(text)) or {"router"}
        group_call = re.compile(
            r'\b(?:' + "|".join(map(re.escape, router_vars)) + r')\s*\.\s*group\s*\(\s*"([^"]*)"\s*\)')
        # Routes straight on the router: router.get("health") { … }
        for m in REGISTRATION.finditer(text):
            if m.group(1) in router_vars:
                routes.add((m.group(3).upper(), normalize(m.group(4) or "")))
                placed.add((name, m.start(2)))
        # Routes types mounted on groups: XRoutes(…).add(to: router.group("v1/x")…, other: …)
        for m in ADD_CALL.finditer(text):
            args_end = closing(text, m.end() - 1)
            args = split_top_level(text[m.end():args_end])
            prefixes = {}
            for arg in args:
                label, colon, expr = arg.partition(":")
                group = group_call.search(expr)
                if colon and group:
                    prefixes[label.strip()] = group.group(1)
            if not prefixes:
                continue   # .add(middleware: …) and the like
            before = text[:m.start()].rstrip()
            type_name = None
            if before.endswith(")"):
                constructor = re.search(r'\b([A-Z]\w*)\s*$', before[:opening(before, len(before) - 1)])
                type_name = constructor.group(1) if constructor else None
            candidates = [(file, func) for file, func in funcs.get(type_name or "", [])
                          if sorted(func.labels) == sorted(prefixes)]
            if not candidates:
                where = f"{type_name}(…).add({', '.join(l + ':' for l in prefixes)})" if type_name else "an .add(…) call"
                problems.append(f"{name}: cannot tell which routes {where} mounts; teach check-openapi.py about it")
                continue
            file, func = candidates[0]
            mounted.add(id(func))
            prefix_of = {param: prefixes[label] for label, param in zip(func.labels, func.names)}
            body = texts[file]
            for r in REGISTRATION.finditer(body, func.body_start, func.body_end):
                if r.group(1) in prefix_of:
                    routes.add((r.group(3).upper(), normalize(prefix_of[r.group(1)], r.group(4) or "")))
                    placed.add((file, r.start(2)))

    for type_name, entries in funcs.items():
        for file, func in entries:
            if id(func) not in mounted:
                problems.append(f"{file}: {type_name}.add({', '.join(l + ':' for l in func.labels)}) "
                                "registers routes but is never mounted on a router group")
    # Anything that looks like a route registration but was not placed: fail rather than miss it.
    for name, text in texts.items():
        for m in REGISTRATION.finditer(text):
            if (name, m.start(2)) not in placed and not any(
                    file == name and func.body_start < m.start() < func.body_end and id(func) not in mounted
                    for entries in funcs.values() for file, func in entries):
                line = text.count("\n", 0, m.start()) + 1
                problems.append(f"{name}:{line}: route registration not understood: "
                                f"{text[m.start():m.end()].strip()}")
    if not routes:
        problems.append(f"no routes found in {sources}")
    return routes, problems


ERROR_CODE = re.compile(r'\bcode:\s*(?:String\s*=\s*)?"([a-z][a-z0-9_]*)"|\brule\(\s*"([a-z][a-z0-9_]*)"')
STARTUP_FAULT = re.compile(r'ParleyError\(\s*\.internalFailure\s*,\s*code:\s*"([a-z][a-z0-9_]*)"')


def server_error_codes(sources: Path) -> set[str]:
    """The error codes the Swift sources can send (see 3. above)."""
    sent: set[str] = set()
    for file in sorted(sources.rglob("*.swift")):
        text = strip_comments(file.read_text(encoding="utf-8"))
        faults = {m.start(1) for m in STARTUP_FAULT.finditer(text) if m.group(1) != "internal_error"}
        for m in ERROR_CODE.finditer(text):
            group = 1 if m.group(1) else 2
            if m.start(group) not in faults:
                sent.add(m.group(group))
    return sent


def fuzz_config_problems(config_path: Path, spec: dict) -> list[str]:
    """What docs/schemathesis.toml declares that the spec does not back (see 4. above)."""
    import tomllib
    try:
        config = tomllib.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        return [f"cannot read {config_path.name}: {error}"]
    problems = []
    responses = {}
    for item in (spec.get("paths") or {}).values():
        for method in METHODS:
            operation = item.get(method) if isinstance(item, dict) else None
            if isinstance(operation, dict) and "operationId" in operation:
                responses[operation["operationId"]] = {str(code) for code in operation.get("responses") or {}}
    for name, check in (config.get("checks") or {}).items():
        if isinstance(check, dict) and check.get("enabled") is False or name == "enabled" and check is False:
            problems.append(f"{config_path.name}: [checks] switches {name} off for the whole run")
    for phase, settings in (config.get("phases") or {}).items():
        for name, check in ((settings or {}).get("checks") or {}).items() if isinstance(settings, dict) else []:
            if isinstance(check, dict) and check.get("enabled") is False:
                problems.append(f"{config_path.name}: [phases.{phase}.checks] switches {name} off for the phase")
    for entry in config.get("operations") or []:
        ids = entry.get("include-operation-id") or []
        ids = [ids] if isinstance(ids, str) else ids
        for operation_id in ids:
            if operation_id not in responses:
                problems.append(f"{config_path.name}: no operation {operation_id} in the spec")
        for check_name, check in (entry.get("checks") or {}).items():
            statuses = check.get("expected-statuses") if isinstance(check, dict) else None
            if statuses is None:
                continue
            if not ids:
                problems.append(f"{config_path.name}: expected-statuses for {check_name} need include-operation-id")
            for operation_id in ids:
                for status in map(str, statuses):
                    # 405 (another method on the path) is documented once, in the conventions.
                    if operation_id in responses and status not in responses[operation_id] | {"405"}:
                        problems.append(f"{config_path.name}: {operation_id} may answer {status} ({check_name}) "
                                        "but the spec does not document it")
    return problems


def spec_operations(spec: dict) -> set[tuple[str, str]]:
    operations = set()
    for path, item in (spec.get("paths") or {}).items():
        for method in METHODS:
            if isinstance(item, dict) and method in item:
                operations.add((method.upper(), path))
    return operations


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root_default = Path(__file__).resolve().parent.parent
    parser.add_argument("--root", type=Path, default=root_default, help="repository root")
    parser.add_argument("--spec", type=Path, help="the OpenAPI document (default: ROOT/docs/openapi.yaml)")
    args = parser.parse_args()
    spec_path = args.spec or args.root / "docs" / "openapi.yaml"

    try:
        import yaml
        from openapi_spec_validator import validate
    except ImportError as error:
        print(f"check-openapi: needs PyYAML and openapi-spec-validator ({error})", file=sys.stderr)
        return 1

    failures: list[str] = []
    try:
        spec = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        print(f"check-openapi: cannot read {spec_path}: {error}", file=sys.stderr)
        return 1
    if not isinstance(spec, dict):
        print(f"check-openapi: {spec_path} is not a mapping", file=sys.stderr)
        return 1
    if not str(spec.get("openapi", "")).startswith("3.1"):
        failures.append(f"openapi is {spec.get('openapi')!r}, expected 3.1.x")
    try:
        validate(spec, base_uri=spec_path.resolve().as_uri())
    except Exception as error:  # the validator raises its own exception types
        text = str(getattr(error, "message", None) or error).strip().splitlines()[0]
        where = "/".join(str(part) for part in getattr(error, "absolute_path", []) or [])
        failures.append(f"invalid OpenAPI document{' at ' + where if where else ''}: "
                        + (text if len(text) <= 300 else text[:300] + " …"))

    routes, problems = server_routes(args.root / "Sources" / "ParleyHTTP")
    failures += problems
    web_file = args.root / "Sources" / "ParleyHTTP" / WEB_CLIENT_FILE
    web_routes = set()
    if web_file.exists():
        text = strip_comments(web_file.read_text(encoding="utf-8"))
        web_routes = {(m.group(3).upper(), normalize(m.group(4) or "")) for m in REGISTRATION.finditer(text)}
    if web_routes != WEB_CLIENT_ROUTES:
        failures.append(f"{WEB_CLIENT_FILE} serves {sorted(web_routes)}, but WEB_CLIENT_ROUTES (left out of the spec) "
                        f"says {sorted(WEB_CLIENT_ROUTES)}")
    routes -= web_routes & WEB_CLIENT_ROUTES
    documented = spec_operations(spec)
    for method, path in sorted(routes - documented, key=lambda r: (r[1], r[0])):
        failures.append(f"route not in the spec: {method} {path}")
    for method, path in sorted(documented - routes, key=lambda r: (r[1], r[0])):
        failures.append(f"in the spec but no route serves it: {method} {path}")

    fuzz_config = spec_path.parent / "schemathesis.toml"
    if fuzz_config.exists():
        failures += fuzz_config_problems(fuzz_config, spec)

    codes = server_error_codes(args.root / "Sources")
    enum = set(((spec.get("components") or {}).get("schemas") or {}).get("ErrorCode", {}).get("enum") or [])
    if not codes:
        failures.append("no error codes found in Sources")
    for code in sorted(codes - enum):
        failures.append(f"error code sent by the server but not in components.schemas.ErrorCode: {code}")
    for code in sorted(enum - codes):
        failures.append(f"error code in components.schemas.ErrorCode that the server never sends: {code}")

    if failures:
        print(f"check-openapi: {spec_path} FAILED", file=sys.stderr)
        for failure in failures:
            print(f"  - {failure}", file=sys.stderr)
        return 1
    print(f"check-openapi: {spec_path} is valid OpenAPI {spec['openapi']} and matches the {len(routes)} routes "
          f"and the {len(codes)} error codes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
