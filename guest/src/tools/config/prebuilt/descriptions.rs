//! Toolbox's description of each prebuilt type whose Go code supplies none (its
//! generated tables in [`super::postgres`] and [`super::mysql`] leave those empty):
//! the text Toolbox's own prebuilt configurations (`internal/prebuiltconfigs/tools/`,
//! vendored in `tests/integration/toolbox_prebuilt/configs/`) give that type, so a
//! configuration that omits `description` gets what a Toolbox user sees there.

/// `(tool type, description)`.
pub const DESCRIPTIONS: &[(&str, &str)] = &[
    (
        "postgres-list-active-queries",
        "List the top N (default 50) currently running queries (state='active') from pg_stat_activity, ordered by longest-running first. Returns pid, user, database, application_name, client_addr, state, wait_event_type/wait_event, backend/xact/query start times, computed query_duration, and the SQL text.",
    ),
    (
        "postgres-list-available-extensions",
        "Discover all PostgreSQL extensions available for installation on this server, returning name, default_version, and description.",
    ),
    (
        "postgres-list-installed-extensions",
        "List all installed PostgreSQL extensions with their name, version, schema, owner, and description.",
    ),
    (
        "postgres-list-tables",
        "Lists detailed schema information (object type, columns, constraints, indexes, triggers, owner, comment) as JSON for user-created tables (ordinary or partitioned). Filters by a comma-separated list of names. If names are omitted, lists all tables in user schemas.",
    ),
    (
        "mysql-list-tables",
        "Lists detailed schema information (object type, columns, constraints, indexes, triggers, comment) as JSON for user-created tables (ordinary or partitioned). Filters by a comma-separated list of names. If names are omitted, lists all tables in user schemas.",
    ),
    (
        "mysql-list-active-queries",
        "Lists top N (default 10) ongoing queries from processlist and innodb_trx, ordered by execution time in descending order. Returns detailed information of those queries in json format, including process id, query, transaction duration, transaction wait duration, process time, transaction state, process state, username with host, transaction rows locked, transaction rows modified, and db schema.",
    ),
    (
        "mysql-get-query-plan",
        "Provide information about how MySQL executes a SQL statement. Common use cases include: 1) analyze query plan to improve its performance, and 2) determine effectiveness of existing indexes and evaluate new ones. Pass a single SQL statement in sql_statement; the tool returns its execution plan without running it.",
    ),
    (
        "mysql-list-table-stats",
        "Display table statistics including table size, total latency, rows read, rows written, read and write latency for entire instance, a specified database, or a specified table. Specifying a database name or table name filters the output to that specific db or table. Results are limited to 10 by default.",
    ),
    (
        "mysql-list-tables-missing-unique-indexes",
        "Find tables that do not have primary or unique key constraint. A primary key or unique key is the only mechanism that guaranttes a row is unique. Without them, the database-level protection against data integrity issues will be missing.",
    ),
    (
        "mysql-list-table-fragmentation",
        "List table fragmentation in MySQL, by calculating the size of the data and index files and free space allocated to each table. The query calculates fragmentation percentage which represents the proportion of free space relative to the total data and index size. Storage can be reclaimed for tables with high fragmentation using OPTIMIZE TABLE.",
    ),
    (
        "mysql-list-all-locks",
        "Lists top N (default 10) locks on the specified database ordered by query execution time in descending order.",
    ),
    (
        "mysql-show-query-stats",
        "Displays query execution statistics including execution count, total and average latency, max latency, total rows examined, full table scans, and inefficient index usage.",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Each is the text of Toolbox's prebuilt configuration, verbatim.
    #[test]
    fn every_description_is_toolboxs_prebuilt_text() {
        let configs = [
            include_str!("../../../../../tests/integration/toolbox_prebuilt/configs/postgres.yaml"),
            include_str!("../../../../../tests/integration/toolbox_prebuilt/configs/mysql.yaml"),
        ];
        for (tool_type, description) in DESCRIPTIONS {
            assert!(super::super::find(tool_type).is_some(), "{tool_type} is not prebuilt");
            assert!(
                configs.iter().any(|c| c.contains(&format!("type: {tool_type}\n"))
                    && c.contains(description)),
                "{tool_type}: not Toolbox's text"
            );
        }
        for t in super::super::all_types() {
            assert!(super::super::default_description(t).is_some(), "{t} has no default");
        }
    }
}
