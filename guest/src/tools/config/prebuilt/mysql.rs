//! Toolbox 1.12's prebuilt MySQL tool types (the 8 catalog tools of its prebuilt `mysql`
//! configuration) as data: **generated** by `scripts/toolbox_mysql_tools.py` from the
//! release binary of `@toolbox-sdk/server-linux-x64@1.12.0`, whose statements (the Go
//! constants of `internal/tools/mysql/*/*.go` of github.com/googleapis/genai-toolbox at
//! v1.12.0, Apache-2.0) these are, byte for byte, with Toolbox's parameters, defaults
//! and descriptions, and the order in which its `Invoke` binds them to the `?`
//! placeholders. The test `toolbox_prebuilt::mysql_catalog_is_toolboxs` checks every
//! statement and description against that binary. Toolbox requires a description for
//! each type (none is supplied). What each does besides its statement (checks before
//! it, the plan of `mysql-get-query-plan`) is the host's `handlers::mysql::catalog`.
//! Do not edit by hand.

use super::{PrebuiltParam, PrebuiltTool};
use crate::tools::params::ParamType;

/// One MySQL catalog type: its statement tool and which parameter each `?` takes.
#[derive(Debug, PartialEq, Eq)]
pub struct MysqlTool {
    /// The type, its statement and parameters.
    pub tool: PrebuiltTool,
    /// The parameter each `?` of the statement binds, in order (Toolbox passes some
    /// twice: `(? IS NULL OR p.time >= ?)`).
    pub binds: &'static [&'static str],
}

/// `mysql-list-all-locks` on a MySQL 5.7 server (no `performance_schema.data_locks`),
/// which Toolbox runs instead of that type's statement when `VERSION()` starts `5.7`.
pub const LIST_ALL_LOCKS_57: &str = "\nSELECT  \n  th.THREAD_ID AS thread_id,\n  it.TRX_MYSQL_THREAD_ID AS process_id,\n  REPLACE(SUBSTRING_INDEX(il.lock_table, '.', 1), '`', '') AS table_schema,\n  REPLACE(SUBSTRING_INDEX(il.lock_table, '.', -1), '`', '') AS table_name,\n  il.lock_type AS lock_type, \n  il.lock_mode AS lock_mode,\n  IF(w.requested_lock_id IS NOT NULL, 'WAITING', 'GRANTED') AS lock_status,\n  it.TRX_STATE AS transaction_state,\n  it.TRX_OPERATION_STATE AS current_operation,\n  SUBSTRING(it.TRX_QUERY, 1, 100) AS query\nFROM\n  information_schema.innodb_locks il\nINNER JOIN information_schema.innodb_trx it\n  ON il.lock_trx_id = it.TRX_ID\nLEFT JOIN performance_schema.threads th\n  ON it.TRX_MYSQL_THREAD_ID = th.PROCESSLIST_ID\nLEFT JOIN information_schema.innodb_lock_waits w\n  ON il.lock_id = w.requested_lock_id\nWHERE\n  (REPLACE(SUBSTRING_INDEX(il.lock_table, '.', 1), '`', '') = COALESCE(NULLIF(?, ''), NULLIF(DATABASE(), '')) OR COALESCE(NULLIF(?, ''), NULLIF(DATABASE(), '')) IS NULL)\n  AND (COALESCE(?, '') = '' OR REPLACE(SUBSTRING_INDEX(il.lock_table, '.', -1), '`', '') = ?)\nORDER BY it.TRX_STARTED\nLIMIT ?;\n";

/// Every MySQL catalog type.
pub const TOOLS: &[MysqlTool] = &[
    MysqlTool {
        tool: PrebuiltTool {
            tool_type: "mysql-list-tables",
            description: "",
            statement: "\n    SELECT\n        T.TABLE_SCHEMA AS schema_name,\n        T.TABLE_NAME AS object_name,\n        CASE\n            WHEN @output_format = 'simple' THEN\n                JSON_OBJECT('name', T.TABLE_NAME)\n            ELSE\n                CONVERT(\n                    JSON_OBJECT(\n                        'schema_name', T.TABLE_SCHEMA,\n                        'object_name', T.TABLE_NAME,\n                        'object_type', 'TABLE',\n                        'owner', (\n                            SELECT\n                                IFNULL(U.GRANTEE, 'N/A')\n                            FROM\n                                INFORMATION_SCHEMA.SCHEMA_PRIVILEGES U\n                            WHERE\n                                U.TABLE_SCHEMA = T.TABLE_SCHEMA\n                            LIMIT 1\n                        ),\n                        'comment', IFNULL(T.TABLE_COMMENT, ''),\n                        'columns', (\n                            SELECT\n                                IFNULL(\n                                    JSON_ARRAYAGG(\n                                        JSON_OBJECT(\n                                            'column_name', C.COLUMN_NAME,\n                                            'data_type', C.COLUMN_TYPE,\n                                            'ordinal_position', C.ORDINAL_POSITION,\n                                            'is_not_nullable', IF(C.IS_NULLABLE = 'NO', TRUE, FALSE),\n                                            'column_default', C.COLUMN_DEFAULT,\n                                            'column_comment', IFNULL(C.COLUMN_COMMENT, '')\n                                        )\n                                    ),\n                                    JSON_ARRAY()\n                                )\n                            FROM\n                                INFORMATION_SCHEMA.COLUMNS C\n                            WHERE\n                                C.TABLE_SCHEMA = T.TABLE_SCHEMA AND C.TABLE_NAME = T.TABLE_NAME\n                            ORDER BY C.ORDINAL_POSITION\n                        ),\n                        'constraints', (\n                            SELECT\n                                IFNULL(\n                                    JSON_ARRAYAGG(\n                                        JSON_OBJECT(\n                                            'constraint_name', TC.CONSTRAINT_NAME,\n                                            'constraint_type',\n                                            CASE TC.CONSTRAINT_TYPE\n                                                WHEN 'PRIMARY KEY' THEN 'PRIMARY KEY'\n                                                WHEN 'FOREIGN KEY' THEN 'FOREIGN KEY'\n                                                WHEN 'UNIQUE' THEN 'UNIQUE'\n                                                ELSE TC.CONSTRAINT_TYPE\n                                            END,\n                                            'constraint_definition', '',\n                                            'constraint_columns', (\n                                                SELECT\n                                                    IFNULL(JSON_ARRAYAGG(KCU.COLUMN_NAME), JSON_ARRAY())\n                                                FROM\n                                                    INFORMATION_SCHEMA.KEY_COLUMN_USAGE KCU\n                                                WHERE\n                                                    KCU.CONSTRAINT_SCHEMA = TC.CONSTRAINT_SCHEMA\n                                                    AND KCU.CONSTRAINT_NAME = TC.CONSTRAINT_NAME\n                                                    AND KCU.TABLE_NAME = TC.TABLE_NAME\n                                                ORDER BY KCU.ORDINAL_POSITION\n                                            ),\n                                            'foreign_key_referenced_table', IF(TC.CONSTRAINT_TYPE = 'FOREIGN KEY', RC.REFERENCED_TABLE_NAME, NULL),\n                                            'foreign_key_referenced_columns', IF(TC.CONSTRAINT_TYPE = 'FOREIGN KEY',\n                                                (SELECT IFNULL(JSON_ARRAYAGG(FKCU.REFERENCED_COLUMN_NAME), JSON_ARRAY())\n                                                FROM INFORMATION_SCHEMA.KEY_COLUMN_USAGE FKCU\n                                                WHERE FKCU.CONSTRAINT_SCHEMA = TC.CONSTRAINT_SCHEMA\n                                                    AND FKCU.CONSTRAINT_NAME = TC.CONSTRAINT_NAME\n                                                    AND FKCU.TABLE_NAME = TC.TABLE_NAME\n                                                    AND FKCU.REFERENCED_TABLE_NAME IS NOT NULL\n                                                ORDER BY FKCU.ORDINAL_POSITION),\n                                                NULL\n                                            )\n                                        )\n                                    ),\n                                    JSON_ARRAY()\n                                )\n                            FROM\n                                INFORMATION_SCHEMA.TABLE_CONSTRAINTS TC\n                            LEFT JOIN\n                                INFORMATION_SCHEMA.REFERENTIAL_CONSTRAINTS RC\n                                ON TC.CONSTRAINT_SCHEMA = RC.CONSTRAINT_SCHEMA\n                                AND TC.CONSTRAINT_NAME = RC.CONSTRAINT_NAME\n                                AND TC.TABLE_NAME = RC.TABLE_NAME\n                            WHERE\n                                TC.TABLE_SCHEMA = T.TABLE_SCHEMA AND TC.TABLE_NAME = T.TABLE_NAME\n                        ),\n                        'indexes', (\n                            SELECT\n                                IFNULL(\n                                    JSON_ARRAYAGG(\n                                        JSON_OBJECT(\n                                            'index_name', IndexData.INDEX_NAME,\n                                            'is_unique', IF(IndexData.NON_UNIQUE = 0, TRUE, FALSE),\n                                            'is_primary', IF(IndexData.INDEX_NAME = 'PRIMARY', TRUE, FALSE),\n                                            'index_columns', IFNULL(IndexData.INDEX_COLUMNS_ARRAY, JSON_ARRAY())\n                                        )\n                                    ),\n                                    JSON_ARRAY()\n                                )\n                            FROM (\n                                SELECT\n                                    S.TABLE_SCHEMA,\n                                    S.TABLE_NAME,\n                                    S.INDEX_NAME,\n                                    MIN(S.NON_UNIQUE) AS NON_UNIQUE,\n                                    JSON_ARRAYAGG(S.COLUMN_NAME) AS INDEX_COLUMNS_ARRAY\n                                FROM\n                                    INFORMATION_SCHEMA.STATISTICS S\n                                GROUP BY\n                                    S.TABLE_SCHEMA, S.TABLE_NAME, S.INDEX_NAME\n                            ) AS IndexData\n                            WHERE IndexData.TABLE_SCHEMA = T.TABLE_SCHEMA AND IndexData.TABLE_NAME = T.TABLE_NAME\n                            ORDER BY IndexData.INDEX_NAME\n                        ),\n                        'triggers', (\n                            SELECT\n                                IFNULL(\n                                    JSON_ARRAYAGG(\n                                        JSON_OBJECT(\n                                            'trigger_name', TR.TRIGGER_NAME,\n                                            'trigger_definition', TR.ACTION_STATEMENT\n                                        )\n                                    ),\n                                    JSON_ARRAY()\n                                )\n                            FROM\n                                INFORMATION_SCHEMA.TRIGGERS TR\n                            WHERE\n                                TR.EVENT_OBJECT_SCHEMA = T.TABLE_SCHEMA AND TR.EVENT_OBJECT_TABLE = T.TABLE_NAME\n                            ORDER BY TR.TRIGGER_NAME\n                        )\n                    )\n                USING utf8mb4)\n        END AS object_details\n    FROM\n        INFORMATION_SCHEMA.TABLES T\n    CROSS JOIN (SELECT @table_names := ?, @output_format := ?) AS variables\n    WHERE\n        T.TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')\n        AND (NULLIF(TRIM(@table_names), '') IS NULL OR FIND_IN_SET(T.TABLE_NAME, @table_names))\n        AND T.TABLE_TYPE = 'BASE TABLE'\n    ORDER BY\n        T.TABLE_SCHEMA, T.TABLE_NAME;\n",
            parameters: &[
                PrebuiltParam {
                    name: "table_names",
                    param_type: ParamType::String,
                    default: Some("\"\""),
                    required: false,
                    description: "Optional: A comma-separated list of table names. If empty, details for all tables will be listed.",
                },
                PrebuiltParam {
                    name: "output_format",
                    param_type: ParamType::String,
                    default: Some("\"detailed\""),
                    required: false,
                    description: "Optional: Use 'simple' for names only or 'detailed' for full info.",
                },
            ],
        },
        binds: &["table_names", "output_format"],
    },
    MysqlTool {
        tool: PrebuiltTool {
            tool_type: "mysql-list-active-queries",
            description: "",
            statement: "\n    SELECT\n        p.id AS processlist_id,\n        substring(IFNULL(p.info, t.trx_query), 1, 100) AS query,\n        t.trx_started AS trx_started,\n        (UNIX_TIMESTAMP(UTC_TIMESTAMP()) - UNIX_TIMESTAMP(t.trx_started)) AS trx_duration_seconds,\n        (UNIX_TIMESTAMP(UTC_TIMESTAMP()) - UNIX_TIMESTAMP(t.trx_wait_started)) AS trx_wait_duration_seconds,\n        p.time AS query_time,\n        t.trx_state AS trx_state,\n        p.state AS process_state,\n        IF(p.host IS NULL OR p.host = '', p.user, concat(p.user, '@', SUBSTRING_INDEX(p.host, ':', 1))) AS user,\n        t.trx_rows_locked AS trx_rows_locked,\n        t.trx_rows_modified AS trx_rows_modified,\n        p.db AS db\n    FROM\n        information_schema.processlist p\n        LEFT OUTER JOIN\n        information_schema.innodb_trx t\n        ON p.id = t.trx_mysql_thread_id\n    WHERE\n        (? IS NULL OR p.time >= ?)\n        AND p.id != CONNECTION_ID()\n        AND Command NOT IN ('Binlog Dump', 'Binlog Dump GTID', 'Connect', 'Connect Out', 'Register Slave')\n        AND User NOT IN ('system user', 'event_scheduler')\n        AND (t.trx_id is NOT NULL OR command != 'Sleep')\n    ORDER BY\n        t.trx_started\n    LIMIT ?;\n",
            parameters: &[
                PrebuiltParam {
                    name: "min_duration_secs",
                    param_type: ParamType::Integer,
                    default: Some("0"),
                    required: false,
                    description: "Optional: Only show queries running for at least this long in seconds",
                },
                PrebuiltParam {
                    name: "limit",
                    param_type: ParamType::Integer,
                    default: Some("100"),
                    required: false,
                    description: "Optional: The maximum number of rows to return.",
                },
            ],
        },
        binds: &["min_duration_secs", "min_duration_secs", "limit"],
    },
    MysqlTool {
        tool: PrebuiltTool {
            tool_type: "mysql-get-query-plan",
            description: "",
            statement: "EXPLAIN FORMAT=JSON %s",
            parameters: &[PrebuiltParam {
                name: "sql_statement",
                param_type: ParamType::String,
                default: None,
                required: true,
                description: "The sql statement to explain.",
            }],
        },
        binds: &[],
    },
    MysqlTool {
        tool: PrebuiltTool {
            tool_type: "mysql-list-table-stats",
            description: "",
            statement: "\nSELECT\n  t.table_schema AS 'table_schema',\n  t.table_name AS 'table_name',\n  ROUND((t.data_length + t.index_length) / 1024 / 1024, 2) AS 'size_MB',\n  t.TABLE_ROWS AS 'row_count',\n  ROUND(ts.total_latency / 1000000000000, 2) AS 'total_latency_secs',\n  ts.rows_fetched AS 'rows_fetched',\n  ts.rows_inserted AS 'rows_inserted',\n  ts.rows_updated AS 'rows_updated',\n  ts.rows_deleted AS 'rows_deleted',\n  ts.io_read_requests AS 'io_reads',\n  ROUND(ts.io_read_latency / 1000000000000, 2) AS 'io_read_latency',\n  ts.io_write_requests AS 'io_writes',\n  ROUND(ts.io_write_latency / 1000000000000, 2) AS 'io_write_latency',\n  ts.io_misc_requests AS 'io_misc_requests',\n  ROUND(ts.io_misc_latency / 1000000000000, 2) AS 'io_misc_latency'\nFROM\n  information_schema.tables AS t\nINNER JOIN\n  sys.x$schema_table_statistics AS ts\n  ON (t.table_schema = ts.table_schema AND t.table_name = ts.table_name)\nWHERE\n  t.table_schema NOT IN ('sys', 'information_schema', 'mysql', 'performance_schema')\n  AND (t.table_schema = COALESCE(NULLIF(?, ''), NULLIF(DATABASE(), '')) OR COALESCE(NULLIF(?, ''), NULLIF(DATABASE(), '')) IS NULL)\n  AND (COALESCE(?, '') = '' OR t.table_name = ?)\nORDER BY\n  CASE ?\n    WHEN 'row_count' THEN row_count\n    WHEN 'rows_fetched' THEN rows_fetched\n    WHEN 'rows_inserted' THEN rows_inserted\n    WHEN 'rows_updated' THEN rows_updated\n    WHEN 'rows_deleted' THEN rows_deleted\n    ELSE ts.total_latency\n    END DESC\nLIMIT ?;\n",
            parameters: &[
                PrebuiltParam {
                    name: "table_schema",
                    param_type: ParamType::String,
                    default: Some("\"\""),
                    required: false,
                    description: "(Optional) The database where statistics  is to be executed. Check all tables visible to the current user if not specified",
                },
                PrebuiltParam {
                    name: "table_name",
                    param_type: ParamType::String,
                    default: Some("\"\""),
                    required: false,
                    description: "(Optional) Name of the table to be checked. Check all tables visible to the current user if not specified.",
                },
                PrebuiltParam {
                    name: "sort_by",
                    param_type: ParamType::String,
                    default: Some("\"\""),
                    required: false,
                    description: "(Optional) The column to sort by",
                },
                PrebuiltParam {
                    name: "limit",
                    param_type: ParamType::Integer,
                    default: Some("10"),
                    required: false,
                    description: "(Optional) Max rows to return, default is 10",
                },
                PrebuiltParam {
                    name: "connected_schema",
                    param_type: ParamType::String,
                    default: None,
                    required: false,
                    description: "(Optional) The connected db",
                },
            ],
        },
        binds: &["table_schema", "table_schema", "table_name", "table_name", "sort_by", "limit"],
    },
    MysqlTool {
        tool: PrebuiltTool {
            tool_type: "mysql-list-tables-missing-unique-indexes",
            description: "",
            statement: "\n    SELECT\n        tab.table_schema AS table_schema,\n        tab.table_name AS table_name\n    FROM\n        information_schema.tables tab\n        LEFT JOIN\n        information_schema.table_constraints tco\n        ON\n            tab.table_schema = tco.table_schema\n            AND tab.table_name = tco.table_name\n            AND tco.constraint_type IN ('PRIMARY KEY', 'UNIQUE')\n    WHERE\n        tco.constraint_type IS NULL\n        AND tab.table_schema NOT IN('mysql', 'information_schema', 'performance_schema', 'sys')\n        AND tab.table_type = 'BASE TABLE'\n        AND (COALESCE(?, '') = '' OR tab.table_schema = ?)\n    ORDER BY\n        tab.table_schema,\n        tab.table_name\n    LIMIT ?;\n",
            parameters: &[
                PrebuiltParam {
                    name: "table_schema",
                    param_type: ParamType::String,
                    default: Some("\"\""),
                    required: false,
                    description: "(Optional) The database where the check is to be performed. Check all tables visible to the current user if not specified",
                },
                PrebuiltParam {
                    name: "limit",
                    param_type: ParamType::Integer,
                    default: Some("50"),
                    required: false,
                    description: "(Optional) Max rows to return, default is 50",
                },
            ],
        },
        binds: &["table_schema", "table_schema", "limit"],
    },
    MysqlTool {
        tool: PrebuiltTool {
            tool_type: "mysql-list-table-fragmentation",
            description: "",
            statement: "\n    SELECT\n        table_schema,\n        table_name,\n        data_length AS data_size,\n        index_length AS index_size,\n        data_free AS data_free,\n        ROUND((data_free / (data_length + index_length)) * 100, 2) AS fragmentation_percentage\n    FROM\n        information_schema.tables\n    WHERE\n        table_schema NOT IN ('sys', 'performance_schema', 'mysql', 'information_schema')\n        AND (COALESCE(?, '') = '' OR table_schema = ?)\n        AND (COALESCE(?, '') = '' OR table_name = ?)\n        AND data_free >= ?\n    ORDER BY\n        fragmentation_percentage DESC,\n        table_schema,\n        table_name\n    LIMIT ?;\n",
            parameters: &[
                PrebuiltParam {
                    name: "table_schema",
                    param_type: ParamType::String,
                    default: Some("\"\""),
                    required: false,
                    description: "(Optional) The database where fragmentation check is to be executed. Check all tables visible to the current user if not specified",
                },
                PrebuiltParam {
                    name: "table_name",
                    param_type: ParamType::String,
                    default: Some("\"\""),
                    required: false,
                    description: "(Optional) Name of the table to be checked. Check all tables visible to the current user if not specified.",
                },
                PrebuiltParam {
                    name: "data_free_threshold_bytes",
                    param_type: ParamType::Integer,
                    default: Some("1"),
                    required: false,
                    description: "(Optional) Only show tables with at least this much free space in bytes. Default is 1",
                },
                PrebuiltParam {
                    name: "limit",
                    param_type: ParamType::Integer,
                    default: Some("10"),
                    required: false,
                    description: "(Optional) Max rows to return, default is 10",
                },
            ],
        },
        binds: &[
            "table_schema",
            "table_schema",
            "table_name",
            "table_name",
            "data_free_threshold_bytes",
            "limit",
        ],
    },
    MysqlTool {
        tool: PrebuiltTool {
            tool_type: "mysql-list-all-locks",
            description: "",
            statement: "\nSELECT\n  dl.thread_id AS thread_id,\n  it.TRX_MYSQL_THREAD_ID AS process_id,\n  dl.object_schema AS table_schema,\n  dl.object_name AS table_name,\n  dl.lock_type AS lock_type,\n  dl.lock_mode AS lock_mode,\n  dl.LOCK_STATUS AS lock_status,\n  it.TRX_STATE AS transaction_state,\n  it.TRX_OPERATION_STATE AS current_operation,\n  substring(it.TRX_QUERY, 1, 100) AS query\nFROM\n  performance_schema.data_locks dl\nINNER JOIN information_schema.innodb_trx it\n  ON dl.ENGINE_TRANSACTION_ID = it.TRX_ID\nWHERE\n  (dl.object_schema = COALESCE(NULLIF(?, ''), NULLIF(DATABASE(), '')) OR COALESCE(NULLIF(?, ''), NULLIF(DATABASE(), '')) IS NULL)\n  AND (COALESCE(?, '') = '' OR dl.object_name = ?)\nORDER BY TRX_STARTED\nLIMIT ?;\n",
            parameters: &[
                PrebuiltParam {
                    name: "table_schema",
                    param_type: ParamType::String,
                    default: Some("\"\""),
                    required: false,
                    description: "(Optional) The database where locked object is detected. Check all databases if not specified.",
                },
                PrebuiltParam {
                    name: "table_name",
                    param_type: ParamType::String,
                    default: Some("\"\""),
                    required: false,
                    description: "(Optional) Name of the table to be checked. Check all tables visible to the current user if not specified.",
                },
                PrebuiltParam {
                    name: "limit",
                    param_type: ParamType::Integer,
                    default: Some("10"),
                    required: false,
                    description: "(Optional) Max rows to return, default is 10",
                },
                PrebuiltParam {
                    name: "connected_schema",
                    param_type: ParamType::String,
                    default: None,
                    required: false,
                    description: "(Optional) The database user is connected to, the value is set from env variable CLOUD_SQL_MYSQL_DATABASE or MYSQL_DATABASE",
                },
            ],
        },
        binds: &["table_schema", "table_schema", "table_name", "table_name", "limit"],
    },
    MysqlTool {
        tool: PrebuiltTool {
            tool_type: "mysql-show-query-stats",
            description: "",
            statement: "\nSELECT \n    schema_name AS 'db',\n    digest_text AS 'query',\n    count_star AS 'execution_count',\n    ROUND(sum_timer_wait / 1000000000, 2) AS 'total_latency_ms',\n    ROUND(avg_timer_wait / 1000000000, 2) AS 'average_latency_ms',\n    ROUND(max_timer_wait / 1000000000, 2) AS 'max_latency_ms',\n    sum_rows_sent AS 'total_rows_sent',\n    sum_rows_examined AS 'total_rows_examined',\n    sum_no_index_used AS 'full_table_scan_count',\n    sum_no_good_index_used AS 'inefficient_index_used_count',\n    last_seen AS 'last_executed'\nFROM performance_schema.events_statements_summary_by_digest\nWHERE schema_name NOT IN ('information_schema', 'performance_schema', 'mysql', 'sys')\nAND (schema_name = COALESCE(NULLIF(?, ''), NULLIF(DATABASE(), '')) OR COALESCE(NULLIF(?, ''), NULLIF(DATABASE(), '')) IS NULL)\nORDER BY sum_timer_wait DESC\nLIMIT ?;\n",
            parameters: &[
                PrebuiltParam {
                    name: "table_schema",
                    param_type: ParamType::String,
                    default: Some("\"\""),
                    required: false,
                    description: "(Optional) The database where query statistics is to be executed. Check all queries visible to the current user if not specified",
                },
                PrebuiltParam {
                    name: "limit",
                    param_type: ParamType::Integer,
                    default: Some("10"),
                    required: false,
                    description: "(Optional) Max rows to return, default is 10",
                },
                PrebuiltParam {
                    name: "connected_schema",
                    param_type: ParamType::String,
                    default: None,
                    required: false,
                    description: "(Optional) The database user is connected to, the value is set from env variable CLOUD_SQL_MYSQL_DATABASE or MYSQL_DATABASE",
                },
            ],
        },
        binds: &["table_schema", "table_schema", "limit"],
    },
];
