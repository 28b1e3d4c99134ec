//! Columns of the OID alias types (`regtype`, `regclass`, `regproc`...) as the names
//! the server prints for them, as Toolbox gives them (pgx reads these types as text):
//! `pg_sequences.data_type` is `"bigint"`, not `20`. Results come back in binary,
//! where such a value is only its OID, so the names are asked of the server once per
//! type and call, on the same connection (so a `search_path` the statement set still
//! decides how `regclass` names are qualified).

use std::collections::{BTreeMap, BTreeSet};

use postgres::types::Type;
use serde_json::Value;

/// The alias types whose text is a name, with the cast that prints it. (`oid`,
/// `xid`, `cid` stay numbers, as pgx gives them.)
fn cast(ty: &Type) -> Option<&'static str> {
    Some(match *ty {
        Type::REGPROC => "regproc",
        Type::REGPROCEDURE => "regprocedure",
        Type::REGOPER => "regoper",
        Type::REGOPERATOR => "regoperator",
        Type::REGCLASS => "regclass",
        Type::REGTYPE => "regtype",
        Type::REGCONFIG => "regconfig",
        Type::REGDICTIONARY => "regdictionary",
        Type::REGNAMESPACE => "regnamespace",
        Type::REGROLE => "regrole",
        Type::REGCOLLATION => "regcollation",
        _ => return None,
    })
}

/// Replaces, in `rows` (objects keyed by column name), the OIDs of every alias-typed
/// column of `columns` with their names. `0` stays as the server prints it (`-`).
pub fn resolve(
    client: &super::client::Client,
    columns: &[postgres::Column],
    rows: &mut [Value],
) -> Result<(), postgres::Error> {
    let mut by_cast: BTreeMap<&'static str, Vec<&str>> = BTreeMap::new();
    for col in columns {
        if let Some(c) = cast(col.type_()) {
            by_cast.entry(c).or_default().push(col.name());
        }
    }
    for (cast, names) in by_cast {
        let oids: BTreeSet<u32> = rows
            .iter()
            .flat_map(|r| names.iter().filter_map(|n| r.get(*n)?.as_u64()))
            .filter_map(|o| u32::try_from(o).ok())
            .collect();
        if oids.is_empty() {
            continue;
        }
        let oids: Vec<u32> = oids.into_iter().collect();
        // `cast` is one of the fixed names above, never input.
        let sql = format!("SELECT o, o::{cast}::text FROM unnest($1::oid[]) AS o");
        let text: BTreeMap<u32, String> = client
            .query(sql.as_str(), &[&oids])?
            .iter()
            .map(|r| (r.get::<_, u32>(0), r.get::<_, String>(1)))
            .collect();
        for row in rows.iter_mut() {
            for name in &names {
                let Some(v) = row.get_mut(*name) else { continue };
                let name_of = v.as_u64().and_then(|o| text.get(&u32::try_from(o).ok()?));
                if let Some(t) = name_of {
                    *v = Value::String(t.clone());
                }
            }
        }
    }
    Ok(())
}
