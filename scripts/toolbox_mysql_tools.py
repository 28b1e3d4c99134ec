#!/usr/bin/env python3
"""Writes guest/src/tools/config/prebuilt/mysql.rs from MCP Toolbox's release binary.

Toolbox 1.12's prebuilt MySQL catalog types (`mysql-list-tables`, ...) each run a
fixed SQL statement, a Go string constant of `internal/tools/mysql/*/*.go` that the
binary keeps verbatim. This cuts each statement out of the binary of the npm package
`@toolbox-sdk/server-linux-x64@1.12.0` (`bin/toolbox`; the tests install it into
~/.cache/filestore/toolbox-1.12.0) between its first line and its last, so the SQL
filestore runs is Toolbox's own, byte for byte. The parameters (names, types,
defaults, descriptions) and the order in which each type's `Invoke` binds them to the
`?` placeholders are Toolbox's too, written below from its Go sources at tag v1.12.0;
the integration test `toolbox_prebuilt::mysql_catalog_is_toolboxs` checks every
statement and description against the binary.

    python3 scripts/toolbox_mysql_tools.py PATH/TO/bin/toolbox > \
        guest/src/tools/config/prebuilt/mysql.rs && cargo fmt
"""
import json
import sys

data = open(sys.argv[1], "rb").read()

# Each statement: its first line(s) and its last line, as the binary holds them.
specs = {
 'list_tables': (b"\n    SELECT\n        T.TABLE_SCHEMA AS schema_name,", b"        T.TABLE_SCHEMA, T.TABLE_NAME;\n"),
 'active': (b"\n    SELECT\n        p.id AS processlist_id,", b"    LIMIT ?;\n"),
 'stats': (b"\nSELECT\n  t.table_schema AS 'table_schema',", b"LIMIT ?;\n"),
 'missing': (b"\n    SELECT\n        tab.table_schema AS table_schema,", b"    LIMIT ?;\n"),
 'frag': (b"\n    SELECT\n        table_schema,\n        table_name,\n        data_length AS data_size", b"    LIMIT ?;\n"),
 'locks8': (b"\nSELECT\n  dl.thread_id AS thread_id,", b"LIMIT ?;\n"),
 'locks57': (b"\nSELECT  \n  th.THREAD_ID AS thread_id,", b"LIMIT ?;\n"),
 'qstats': (b"\nSELECT \n    schema_name AS 'db',", b"LIMIT ?;\n"),
}


def pick(key, excluding=None):
    """The one statement of `specs[key]` in the binary (not containing `excluding`)."""
    start, end = specs[key]
    found, i = [], 0
    while (i := data.find(start, i)) >= 0:
        j = data.find(end, i)
        found.append(data[i:j + len(end)].decode())
        i += 1
    found = [f for f in found if not (excluding and excluding in f)]
    if len(found) != 1:
        sys.exit(f"{key}: {len(found)} statements found in the binary, expected 1")
    return found[0]


S = "String"
I = "Integer"
# (type, statement, [(name, type, default as JSON or None, required, description)],
#  the parameter each `?` binds, in order).
tools = [
 ("mysql-list-tables", pick('list_tables'),
  [("table_names", S, '""', False, "Optional: A comma-separated list of table names. If empty, details for all tables will be listed."),
   ("output_format", S, '"detailed"', False, "Optional: Use 'simple' for names only or 'detailed' for full info.")],
  ["table_names", "output_format"]),
 ("mysql-list-active-queries", pick('active', "SUBSTRING_INDEX(IFNULL(p.host"),
  [("min_duration_secs", I, '0', False, "Optional: Only show queries running for at least this long in seconds"),
   ("limit", I, '100', False, "Optional: The maximum number of rows to return.")],
  ["min_duration_secs", "min_duration_secs", "limit"]),
 ("mysql-get-query-plan", "EXPLAIN FORMAT=JSON %s",
  [("sql_statement", S, None, True, "The sql statement to explain.")],
  []),
 ("mysql-list-table-stats", pick('stats'),
  [("table_schema", S, '""', False, "(Optional) The database where statistics  is to be executed. Check all tables visible to the current user if not specified"),
   ("table_name", S, '""', False, "(Optional) Name of the table to be checked. Check all tables visible to the current user if not specified."),
   ("sort_by", S, '""', False, "(Optional) The column to sort by"),
   ("limit", I, '10', False, "(Optional) Max rows to return, default is 10"),
   ("connected_schema", S, None, False, "(Optional) The connected db")],
  ["table_schema", "table_schema", "table_name", "table_name", "sort_by", "limit"]),
 ("mysql-list-tables-missing-unique-indexes", pick('missing'),
  [("table_schema", S, '""', False, "(Optional) The database where the check is to be performed. Check all tables visible to the current user if not specified"),
   ("limit", I, '50', False, "(Optional) Max rows to return, default is 50")],
  ["table_schema", "table_schema", "limit"]),
 ("mysql-list-table-fragmentation", pick('frag'),
  [("table_schema", S, '""', False, "(Optional) The database where fragmentation check is to be executed. Check all tables visible to the current user if not specified"),
   ("table_name", S, '""', False, "(Optional) Name of the table to be checked. Check all tables visible to the current user if not specified."),
   ("data_free_threshold_bytes", I, '1', False, "(Optional) Only show tables with at least this much free space in bytes. Default is 1"),
   ("limit", I, '10', False, "(Optional) Max rows to return, default is 10")],
  ["table_schema", "table_schema", "table_name", "table_name", "data_free_threshold_bytes", "limit"]),
 ("mysql-list-all-locks", pick('locks8'),
  [("table_schema", S, '""', False, "(Optional) The database where locked object is detected. Check all databases if not specified."),
   ("table_name", S, '""', False, "(Optional) Name of the table to be checked. Check all tables visible to the current user if not specified."),
   ("limit", I, '10', False, "(Optional) Max rows to return, default is 10"),
   ("connected_schema", S, None, False, "(Optional) The database user is connected to, the value is set from env variable CLOUD_SQL_MYSQL_DATABASE or MYSQL_DATABASE")],
  ["table_schema", "table_schema", "table_name", "table_name", "limit"]),
 ("mysql-show-query-stats", pick('qstats'),
  [("table_schema", S, '""', False, "(Optional) The database where query statistics is to be executed. Check all queries visible to the current user if not specified"),
   ("limit", I, '10', False, "(Optional) Max rows to return, default is 10"),
   ("connected_schema", S, None, False, "(Optional) The database user is connected to, the value is set from env variable CLOUD_SQL_MYSQL_DATABASE or MYSQL_DATABASE")],
  ["table_schema", "table_schema", "limit"]),
]


def rs(s):
    return json.dumps(s, ensure_ascii=False)

o = []
p = o.append
p("//! Toolbox 1.12's prebuilt MySQL tool types (the 8 catalog tools of its prebuilt `mysql`")
p("//! configuration) as data: **generated** by `scripts/toolbox_mysql_tools.py` from the")
p("//! release binary of `@toolbox-sdk/server-linux-x64@1.12.0`, whose statements (the Go")
p("//! constants of `internal/tools/mysql/*/*.go` of github.com/googleapis/genai-toolbox at")
p("//! v1.12.0, Apache-2.0) these are, byte for byte, with Toolbox's parameters, defaults")
p("//! and descriptions, and the order in which its `Invoke` binds them to the `?`")
p("//! placeholders. The test `toolbox_prebuilt::mysql_catalog_is_toolboxs` checks every")
p("//! statement and description against that binary. Toolbox requires a description for")
p("//! each type (none is supplied). What each does besides its statement (checks before")
p("//! it, the plan of `mysql-get-query-plan`) is the host's `handlers::mysql::catalog`.")
p("//! Do not edit by hand.")
p("")
p("use super::{PrebuiltParam, PrebuiltTool};")
p("use crate::tools::params::ParamType;")
p("")
p("/// One MySQL catalog type: its statement tool and which parameter each `?` takes.")
p("#[derive(Debug, PartialEq, Eq)]")
p("pub struct MysqlTool {")
p("    /// The type, its statement and parameters.")
p("    pub tool: PrebuiltTool,")
p("    /// The parameter each `?` of the statement binds, in order (Toolbox passes some")
p("    /// twice: `(? IS NULL OR p.time >= ?)`).")
p("    pub binds: &'static [&'static str],")
p("}")
p("")
p("/// `mysql-list-all-locks` on a MySQL 5.7 server (no `performance_schema.data_locks`),")
p("/// which Toolbox runs instead of that type's statement when `VERSION()` starts `5.7`.")
p(f"pub const LIST_ALL_LOCKS_57: &str = {rs(pick('locks57'))};")
p("")
p("/// Every MySQL catalog type.")
p("pub const TOOLS: &[MysqlTool] = &[")
for ty, stmt, params, binds in tools:
    p("    MysqlTool {")
    p("        tool: PrebuiltTool {")
    p(f"            tool_type: {rs(ty)},")
    p('            description: "",')
    p(f"            statement: {rs(stmt)},")
    p("            parameters: &[")
    for name, t, dflt, req, desc in params:
        dd = f"Some({rs(dflt)})" if dflt is not None else "None"
        p(f"                PrebuiltParam {{ name: {rs(name)}, param_type: ParamType::{t}, default: {dd}, required: {'true' if req else 'false'}, description: {rs(desc)} }},")
    p("            ],")
    p("        },")
    p(f"        binds: &[{', '.join(rs(b) for b in binds)}],")
    p("    },")
p("];")
sys.stdout.write("\n".join(o) + "\n")
