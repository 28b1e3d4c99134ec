//! A source's `queryParams`: the connection parameters the PostgreSQL and MySQL
//! handlers read, as a mapping or as one string.

use serde_json::Value;

use filestore_runtime::tools::Source;

/// A source's `queryParams` (a mapping, or one string: see [`parse_query_params`])
/// as pairs, each named in `known` (else an error listing them). With `skip_empty`,
/// pairs with an empty value are left out before the check, as Toolbox's MySQL
/// source does. The PostgreSQL and MySQL handlers both read theirs so.
pub(crate) fn checked_query_params(
    source: &Source,
    known: &[&str],
    skip_empty: bool,
) -> Result<Vec<(String, String)>, String> {
    let name = &source.name;
    let mut params: Vec<(String, String)> = match source.fields.get("queryParams") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                Value::Number(n) => Ok((k.clone(), n.to_string())),
                Value::Bool(b) => Ok((k.clone(), b.to_string())),
                _ => Err(format!("source '{name}': queryParams.{k} must be a string")),
            })
            .collect::<Result<_, _>>()?,
        Some(Value::String(text)) => parse_query_params(text).ok_or_else(|| {
            format!(
                "source '{name}': queryParams '{text}' is neither empty, `key=value&key=value` nor `{{key: value, ...}}`"
            )
        })?,
        Some(_) => {
            return Err(format!("source '{name}': queryParams must be a mapping of strings"));
        }
    };
    if skip_empty {
        params.retain(|(_, v)| !v.is_empty());
    }
    for (k, _) in &params {
        if !known.contains(&k.as_str()) {
            return Err(format!(
                "source '{name}': queryParams.{k} is not a connection parameter filestore knows (known: {})",
                known.join(", ")
            ));
        }
    }
    Ok(params)
}

/// `queryParams` given as one string, as a `${VAR}` reference resolves to (Toolbox's
/// prebuilt configuration writes `queryParams: ${POSTGRES_QUERY_PARAMS:}`, which
/// Toolbox substitutes into the YAML text before parsing): empty for none,
/// `sslmode=require&application_name=x` (a URL query, or space-separated as libpq's
/// keyword form), or a flow mapping `{sslmode: require}`.
pub fn parse_query_params(text: &str) -> Option<Vec<(String, String)>> {
    let text = text.trim();
    if text.is_empty() {
        return Some(Vec::new());
    }
    let (pairs, sep): (Vec<&str>, char) =
        match text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
            Some(inner) => (inner.split(',').collect(), ':'),
            None => (text.split(['&', ' ']).collect(), '='),
        };
    let unquote = |s: &str| s.trim().trim_matches(|c| c == '"' || c == '\'').to_string();
    pairs
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            p.split_once(sep).map(|(k, v)| (unquote(k), unquote(v))).filter(|(k, _)| !k.is_empty())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::parse_query_params;

    #[test]
    fn query_params_strings_in_every_form() {
        let p = |s: &str| parse_query_params(s);
        assert_eq!(p(""), Some(vec![]));
        let want = Some(vec![
            ("sslmode".into(), "require".into()),
            ("application_name".into(), "x".into()),
        ]);
        assert_eq!(p("sslmode=require&application_name=x"), want);
        assert_eq!(p("sslmode=require application_name=x"), want);
        assert_eq!(p("{sslmode: require, application_name: 'x'}"), want);
        assert_eq!(p("sslmode"), None);
    }
}
