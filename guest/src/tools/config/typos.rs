//! Telling a misspelt tool `type` from a real type this host does not run.
//!
//! MCP Toolbox has hundreds of tool types and this host runs a few, so a type it does
//! not know still loads (reported as not runnable here): the configuration may be
//! meant for Toolbox itself. But `type: sqlite-sq` is no Toolbox type either; treated
//! as "not runnable" it passed `filestore check` and failed on the first call. A type
//! within a couple of edits of one this build knows by name, and not known itself, is
//! taken for a misspelling of it, so `check` and `call` can refuse it and suggest the
//! right one. The distance bound is tight on purpose: real Toolbox types near known
//! ones (`oracle-sql`, `tidb-sql`, `mysql-list-tables`...) must not be refused.

use super::load::{STRICT_SQL_TYPES, execute_sql_types};
use super::{RUNNABLE_TOOL_TYPES, prebuilt};

/// Every tool type this build knows by name: the ones the host runs, the prebuilt
/// PostgreSQL and MySQL ones, and the Toolbox types whose fields `check` judges.
pub fn known_tool_types() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = RUNNABLE_TOOL_TYPES.iter().map(|r| r.tool_type).collect();
    out.extend(prebuilt::all_types());
    out.extend(STRICT_SQL_TYPES);
    out.extend(execute_sql_types());
    out.sort_unstable();
    out.dedup();
    out
}

/// The known type `tool_type` is most likely a misspelling of: `None` when it is
/// known itself (or one of `also_known`, e.g. an embedder's own handler types) or no
/// known type is close enough (at most 2 edits, and at most a quarter of its length).
pub fn misspelling_of(tool_type: &str, also_known: &[String]) -> Option<String> {
    let known = known_tool_types();
    let candidates = known.iter().copied().chain(also_known.iter().map(String::as_str));
    if candidates.clone().any(|k| k == tool_type) {
        return None;
    }
    candidates
        .filter(|k| !other_family(tool_type, k))
        .map(|k| (edit_distance(tool_type, k), k))
        .filter(|&(d, k)| d <= 2 && d * 4 <= k.chars().count())
        .min()
        .map(|(_, k)| k.to_string())
}

/// Toolbox's database families: the first word of many tool types. Different
/// families have tools of the same name (`mssql-list-tables`, `mysql-list-tables`), a
/// single edit apart, so a type of another known family is never a misspelling of a
/// known type (an unknown first word, `postgress-list-tables`, still can be).
const TOOLBOX_FAMILIES: &[&str] = &[
    "alloydb",
    "bigquery",
    "bigtable",
    "cassandra",
    "clickhouse",
    "cloud",
    "couchbase",
    "dataplex",
    "dataproc",
    "dgraph",
    "elasticsearch",
    "falkordb",
    "firebird",
    "firestore",
    "looker",
    "mindsdb",
    "mongodb",
    "mssql",
    "mysql",
    "neo4j",
    "oceanbase",
    "oracle",
    "postgres",
    "redis",
    "serverless",
    "singlestore",
    "snowflake",
    "spanner",
    "sqlite",
    "tidb",
    "trino",
    "valkey",
    "yugabytedb",
];

/// Whether `a` and `b` start with two different known families.
fn other_family(a: &str, b: &str) -> bool {
    matches!((family(a), family(b)), (Some(x), Some(y)) if x != y)
}

/// The known family `tool_type` starts with, if any.
fn family(tool_type: &str) -> Option<&str> {
    tool_type.split('-').next().filter(|f| TOOLBOX_FAMILIES.contains(f))
}

/// Levenshtein distance (insertions, deletions, substitutions), by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_miss_of_a_known_type_is_a_misspelling() {
        assert_eq!(misspelling_of("sqlite-sq", &[]).as_deref(), Some("sqlite-sql"));
        assert_eq!(misspelling_of("postgres-sqll", &[]).as_deref(), Some("postgres-sql"));
        assert_eq!(misspelling_of("htp", &[]).as_deref(), Some("http"));
        assert_eq!(
            misspelling_of("postgres-list-table", &[]).as_deref(),
            Some("postgres-list-tables")
        );
        assert_eq!(misspelling_of("wether", &["weather".into()]).as_deref(), Some("weather"));
        assert_eq!(
            misspelling_of("postgress-list-tables", &[]).as_deref(),
            Some("postgres-list-tables")
        );
    }

    /// Real Toolbox types this host does not run stay "valid, not runnable".
    #[test]
    fn real_toolbox_types_and_known_ones_are_not_misspellings() {
        for t in [
            "sqlite-sql",
            "mysql-sql",
            "mssql-sql",
            "oracle-sql",
            "tidb-sql",
            "trino-sql",
            "clickhouse-sql",
            "couchbase-sql",
            "firebird-sql",
            "mindsdb-sql",
            "yugabytedb-sql",
            "mysql-list-tables",
            "mssql-list-tables",
            "mssql-execute-sql",
            "mysql-execute-sql",
            "spanner-list-tables",
            "looker-get-models",
            "neo4j-cypher",
            "dgraph-dql",
            "redis",
            "valkey",
            "weather",
        ] {
            assert_eq!(misspelling_of(t, &["weather".into()]), None, "{t}");
        }
    }

    #[test]
    fn edit_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("sqlite-sq", "sqlite-sql"), 1);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
