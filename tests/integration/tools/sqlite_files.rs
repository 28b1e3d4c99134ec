//! SQLite sources touch no file but their database: the model's SQL cannot attach or
//! vacuum into another file, and pragmas that make SQLite write files of its choosing
//! are refused.

use super::*;

/// A model's SQL (`sqlite-execute-sql`) cannot reach other files through SQLite:
/// `ATTACH` of a file and `VACUUM INTO` a file are refused, whatever spells the name
/// (a literal, an expression, a `file:` URI); a temporary or in-memory database and
/// plain `VACUUM` still work, and nothing is created outside the database.
#[test]
fn model_sql_cannot_attach_or_vacuum_into_other_files() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("shop.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO items VALUES (1, 'pen');")
        .unwrap();
    let mut s = prebuilt_sqlite_session(&db);
    let db_path = db.display().to_string();
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let o = outside.display();
    for sql in [
        format!("ATTACH DATABASE '{o}/a.db' AS a"),
        format!("ATTACH ('{o}/' || 'b.db') AS b"),
        format!("ATTACH 'file:{o}/c.db' AS c"),
        format!("VACUUM INTO '{o}/d.db'"),
        format!("SELECT 1; VACUUM INTO '{o}/e.db'"),
        format!("ATTACH DATABASE '{db_path}' AS again"),
    ] {
        let out = invoke(&mut s, "execute_sql", json!({"sql": sql}));
        assert_eq!(out.status, InvokeStatus::Failed, "{sql}: {}", out.text);
        assert!(
            out.text.contains("not authorized") || out.text.contains("authorization denied"),
            "{sql}: {}",
            out.text
        );
    }
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "a file was created outside");
    for sql in ["ATTACH ':memory:' AS m", "ATTACH '' AS t", "VACUUM"] {
        let out = invoke(&mut s, "execute_sql", json!({"sql": sql}));
        assert_eq!(out.status, InvokeStatus::Completed, "{sql}: {}", out.text);
    }
    let out = invoke(&mut s, "execute_sql", json!({"sql": "SELECT name FROM items"}));
    assert_eq!(out.envelope["data"], json!([{"name": "pen"}]), "{}", out.text);
}

/// SQLite sources refuse the pragmas that make SQLite write files of its choosing
/// (a temp directory anywhere, a WAL journal beside the database, sticking to the
/// file), from the model's SQL and from configured statements; reading the journal
/// mode, or setting another, still works.
#[test]
fn sqlite_pragmas_that_write_files_elsewhere_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("shop.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE items (id INTEGER)")
        .unwrap();
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let mut s = prebuilt_sqlite_session(&db);
    for sql in [
        "PRAGMA journal_mode=WAL".to_string(),
        "PRAGMA main.journal_mode = 'wal'".to_string(),
        "SELECT 1; pragma JOURNAL_MODE = Wal".to_string(),
        format!("PRAGMA temp_store_directory = '{}'", outside.display()),
    ] {
        let out = invoke(&mut s, "execute_sql", json!({"sql": sql}));
        assert_eq!(out.status, InvokeStatus::Failed, "{sql}: {}", out.text);
        assert!(out.text.contains("not authorized"), "{sql}: {}", out.text);
    }
    let mode = |s: &mut Session| {
        let out = invoke(s, "execute_sql", json!({"sql": "PRAGMA journal_mode"}));
        out.envelope["data"][0]["journal_mode"].clone()
    };
    assert_eq!(mode(&mut s), "delete");
    let out = invoke(&mut s, "execute_sql", json!({"sql": "PRAGMA journal_mode = TRUNCATE"}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    let out = invoke(
        &mut s,
        "execute_sql",
        json!({"sql": "PRAGMA journal_mode = DELETE; INSERT INTO items VALUES (1)"}),
    );
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    assert_eq!(mode(&mut s), "delete");
    let beside: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("shop.db-"))
        .collect();
    assert!(beside.is_empty(), "files beside the database: {beside:?}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    // A configured statement is refused the same.
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    load(
        &mut s,
        &format!(
            "kind: source\nname: db\ntype: sqlite\ndatabase: {}\n---\nkind: tool\nname: wal\ntype: sqlite-sql\n\
             source: db\ndescription: Turns WAL on.\nstatement: PRAGMA journal_mode = WAL\n",
            db.display()
        ),
    );
    let out = invoke(&mut s, "wal", json!({}));
    assert!(out.text.contains("not authorized"), "{}", out.text);
}
