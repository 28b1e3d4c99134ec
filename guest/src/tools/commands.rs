//! The commands of a `redis` or `valkey` tool with a call's values in place: a word
//! that is exactly `$name` of a declared parameter becomes its value (an array
//! parameter becomes one word per item), every other word is sent as written, as
//! Toolbox's tools do. The host receives the result as the call's statement, a JSON
//! array of commands, each an array of strings (wit/tools.wit, `tool-call`), and
//! sends each word as one bulk string: a value never splits into more words or
//! changes the command it sits in.

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};
use crate::tools::params::ValidatedArgs;

/// `commands` (the tool's list of word lists) with `args` (every declared parameter,
/// absent ones too) substituted, as the JSON text the host reads.
pub fn render(tool: &str, commands: &Value, args: &ValidatedArgs) -> Result<String> {
    let bad = || {
        Error::new(
            ErrorKind::InvalidArgument,
            format!("tool '{tool}': commands must be lists of words"),
        )
    };
    let commands = commands.as_array().ok_or_else(bad)?;
    let mut out = Vec::with_capacity(commands.len());
    for (i, command) in commands.iter().enumerate() {
        let words = command.as_array().ok_or_else(bad)?;
        let mut rendered = Vec::with_capacity(words.len());
        for word in words {
            let word = word.as_str().ok_or_else(bad)?;
            let declared = |n: &&str| args.iter().any(|a| a.name == *n);
            let Some(name) = word.strip_prefix('$').filter(declared) else {
                rendered.push(Value::String(word.to_string()));
                continue;
            };
            match args.get(name) {
                Some(Value::Array(items)) => {
                    rendered.extend(items.iter().map(|v| Value::String(text_of(v))))
                }
                Some(v) => rendered.push(Value::String(text_of(v))),
                None => {
                    return Err(Error::new(
                        ErrorKind::InvalidArgument,
                        format!(
                            "tool '{tool}': command {i} uses ${name}, which this call leaves out (the parameter has no default)"
                        ),
                    ));
                }
            }
        }
        if rendered.is_empty() {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "tool '{tool}': command {i} has no words once this call's values are in place (an empty list)"
                ),
            ));
        }
        out.push(Value::Array(rendered));
    }
    Ok(Value::Array(out).to_string())
}

/// A value as one command word: a string as itself, anything else as its JSON text
/// (`5`, `true`, `{"a":1}`). Toolbox formats non-strings with Go's `%s`, which
/// writes `%!s(int=5)`: docs/configured-tools.md records the difference.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tools::params::{ParamRole, ValidatedArg};

    fn args(pairs: &[(&str, Option<Value>)]) -> ValidatedArgs {
        ValidatedArgs::from(
            pairs
                .iter()
                .map(|(n, v)| ValidatedArg {
                    name: n.to_string(),
                    role: ParamRole::Parameter,
                    value: v.clone(),
                })
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn whole_dollar_words_of_declared_parameters_take_their_values() {
        let commands = json!([
            ["SET", "$key", "$value"],
            ["SADD", "s", "$items"],
            ["GET", "$other", "a $key", "{{.key}}"]
        ]);
        let a = args(&[
            ("key", Some(json!("user:1 x"))),
            ("value", Some(json!(5))),
            ("items", Some(json!(["a", 2, true]))),
        ]);
        let out = render("t", &commands, &a).unwrap();
        let out: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            out,
            json!([
                ["SET", "user:1 x", "5"],
                ["SADD", "s", "a", "2", "true"],
                ["GET", "$other", "a $key", "{{.key}}"]
            ])
        );
    }

    #[test]
    fn a_left_out_parameter_is_refused_naming_the_command() {
        let a = args(&[("key", None)]);
        let e = render("t", &json!([["GET", "k"], ["GET", "$key"]]), &a).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.to_string().contains("command 1 uses $key"), "{e}");
        let a = args(&[("words", Some(json!([])))]);
        let e = render("t", &json!([["$words"]]), &a).unwrap_err();
        assert!(e.to_string().contains("command 0 has no words"), "{e}");
    }
}
