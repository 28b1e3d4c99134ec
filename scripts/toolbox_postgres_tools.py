#!/usr/bin/env python3
"""Generates guest/src/tools/config/prebuilt/postgres.rs from MCP Toolbox's Go sources.

Toolbox's `postgres-list-*` tool types (and the other catalog tools of its prebuilt
PostgreSQL configuration) each run one fixed SQL statement with a fixed parameter
list. This reads them from a checkout of github.com/googleapis/genai-toolbox
(internal/tools/postgres/*/*.go) and writes them as a Rust table, so filestore runs
the same SQL with the same parameters, defaults and descriptions.

    python3 scripts/toolbox_postgres_tools.py /path/to/genai-toolbox > \
        guest/src/tools/config/prebuilt/postgres.rs && cargo fmt

A tool whose Go code does not follow the one-statement pattern is reported on stderr
and left out (it then loads as "not runnable here").
"""
import glob
import json
import os
import re
import subprocess
import sys

root = sys.argv[1]
commit = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
out = []
skipped = []

GO_STR = r'"((?:[^"\\]|\\.)*)"'


def go_string(s):
    return json.loads('"' + s + '"')


for path in sorted(glob.glob(os.path.join(root, "internal/tools/postgres/*/*.go"))):
    if path.endswith("_test.go"):
        continue
    src = open(path).read()
    m = re.search(r'const resourceType string = "([^"]+)"', src)
    if not m:
        continue
    tool_type = m.group(1)
    if tool_type in ("postgres-sql", "postgres-execute-sql"):
        continue
    consts = dict(re.findall(r"const (\w+)\s*=\s*`(.*?)`", src, re.S))
    used = re.findall(r"(?:RunSQL\(ctx,|Query\(ctx,)\s*(\w+)", src)
    stmts = [consts[u] for u in used if u in consts]
    if len(set(stmts)) != 1:
        skipped.append(f"{tool_type}: not one constant statement")
        continue
    statement = stmts[0]
    block = re.search(r"allParameters := parameters\.Parameters\{(.*?)\n\t\}", src, re.S)
    params = []
    if block:
        for call in re.finditer(r"parameters\.New(\w+)\((.*?)\),?\n", block.group(1) + "\n"):
            kind, args = call.group(1), call.group(2)
            strings = [go_string(s) for s in re.findall(GO_STR, args)]
            if kind == "StringParameterWithDefault":
                name, default, desc = strings[0], strings[1], strings[2]
                params.append((name, "String", json.dumps(default), False, desc))
            elif kind == "StringParameterWithRequired":
                name, desc = strings[0], strings[1]
                required = args.strip().endswith("true")
                params.append((name, "String", None, required, desc))
            elif kind == "StringParameter":
                params.append((strings[0], "String", None, True, strings[1]))
            elif kind == "IntParameterWithDefault":
                name = strings[0]
                default = re.search(r",\s*(-?\d+)\s*,", args).group(1)
                params.append((name, "Integer", default, False, strings[1]))
            elif kind == "BooleanParameterWithDefault":
                name = strings[0]
                default = re.search(r",\s*(true|false)\s*,", args).group(1)
                params.append((name, "Boolean", default, False, strings[1]))
            else:
                skipped.append(f"{tool_type}: parameter constructor {kind}")
                params = None
                break
        if params is None:
            continue
    d = re.search(r'(?:cfg\.Description|\bdescription) =\s*' + GO_STR, src)
    raw = re.search(r"(?:cfg\.Description|\bdescription) =\s*`(.*?)`", src, re.S)
    description = go_string(d.group(1)) if d else (raw.group(1) if raw else "")
    if re.search(r"\$\d", statement) is None and params:
        skipped.append(f"{tool_type}: parameters but no placeholders")
        continue
    out.append((tool_type, description, statement, params))


def rs(s):
    return json.dumps(s, ensure_ascii=False)


print("//! Toolbox's prebuilt PostgreSQL tool types as statement tools: **generated** by")
print("//! `scripts/toolbox_postgres_tools.py` from MCP Toolbox's Go sources")
print(f"//! (github.com/googleapis/genai-toolbox at {commit}, Apache-2.0), whose")
print("//! statements, parameters and default descriptions these are. Do not edit by hand.")
print()
print("use super::{PrebuiltParam, PrebuiltTool};")
print("use crate::tools::params::ParamType;")
print()
print("/// Every generated tool type.")
print("pub const TOOLS: &[PrebuiltTool] = &[")
for tool_type, description, statement, params in out:
    print("    PrebuiltTool {")
    print(f"        tool_type: {rs(tool_type)},")
    print(f"        description: {rs(description)},")
    print(f"        statement: {rs(statement)},")
    print("        parameters: &[")
    for name, ty, default, required, desc in params:
        dflt = f"Some({rs(default)})" if default is not None else "None"
        print(f"            PrebuiltParam {{ name: {rs(name)}, param_type: ParamType::{ty}, default: {dflt}, required: {'true' if required else 'false'}, description: {rs(desc)} }},")
    print("        ],")
    print("    },")
print("];")
for s in skipped:
    print("skipped:", s, file=sys.stderr)
