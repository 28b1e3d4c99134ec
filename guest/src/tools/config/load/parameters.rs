//! Decoding a tool's `parameters` and `templateParameters`: types, defaults,
//! allowed/excluded values, bounds, escapes, auth sources, and the statement's
//! template actions checked against them.

use super::*;

/// The mark of a parameter's entry, for a duplicate-name error.
pub(super) fn p_mark(f: &Fields<'_>, path: &str) -> Mark {
    let (list, index) = path.split_once('[').unwrap_or((path, "0]"));
    let index: usize = index.trim_end_matches(']').parse().unwrap_or(0);
    f.entries
        .iter()
        .find(|e| e.key == list)
        .and_then(|e| match &e.value.value {
            Y::Seq(items) => items.get(index).map(|n| n.mark),
            _ => None,
        })
        .unwrap_or(f.mark)
}

/// Checks the template actions of `text` against the parameters of `role`.
pub(super) fn check_template(
    ctx: &mut Ctx<'_>,
    text: &str,
    mark: Mark,
    field: &str,
    params: &[Parameter],
    role: ParamRole,
) {
    let template = match Template::parse_located(text) {
        Ok(t) => t,
        Err(e) => {
            // At the offending line of a literal block, not at the field's key.
            let at = super::decode::line_of(ctx, mark, text, e.offset);
            ctx.err(K::InvalidTemplate, at, Some(field), e.message);
            return;
        }
    };
    for part in template.parts() {
        let (name, array) = match part {
            TemplatePart::Text(_) => continue,
            TemplatePart::Value(n) | TemplatePart::Field(n) => (n, false),
            TemplatePart::Array(n) => (n, true),
        };
        // Inside other Go actions only being declared is checked: how the value is
        // used (`range`, `eq`...) is the template's business.
        let go = matches!(part, TemplatePart::Field(_));
        let Some(p) = params.iter().find(|p| p.name == *name && p.role == role) else {
            ctx.err(
                K::InvalidTemplate,
                mark,
                Some(field),
                format!("template names '{name}', which is not declared in {}", role.field()),
            );
            continue;
        };
        let problem = match (array, p.param_type) {
            _ if go => None,
            (true, ParamType::Array) => None,
            (true, t) => {
                Some(format!("{{{{array .{name}}}}} needs an array parameter; '{name}' is {t}"))
            }
            (false, ParamType::Array) => {
                Some(format!("'{name}' is an array; insert it with {{{{array .{name}}}}}"))
            }
            (false, ParamType::Map) => {
                Some(format!("'{name}' is a map, which cannot be inserted into a template"))
            }
            (false, _) => None,
        };
        if let Some(problem) = problem {
            ctx.err(K::InvalidTemplate, mark, Some(field), problem);
        }
    }
}

/// Decodes the parameter list of `role`, returning each parameter with its field path.
pub(super) fn decode_param_list(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    role: ParamRole,
    refs: &mut Vec<Ref>,
    user: &str,
) -> Vec<(String, Parameter)> {
    let key = role.field();
    let Some(items) = f.list(ctx, key, "parameters") else { return Vec::new() };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("{key}[{i}]");
        if let Some(p) = decode_param(ctx, item, &path, role, false, refs, user) {
            out.push((path, p));
        }
    }
    out
}

/// Decodes one parameter at `path` (an `items` entry when `item`: its name is optional
/// and `required`/`default` are ignored). None when it has errors (reported in `ctx`).
pub(super) fn decode_param(
    ctx: &mut Ctx<'_>,
    node: &Node,
    path: &str,
    role: ParamRole,
    item: bool,
    refs: &mut Vec<Ref>,
    user: &str,
) -> Option<Parameter> {
    let Y::Map(entries) = &node.value else {
        ctx.err(
            K::InvalidValue,
            node.mark,
            Some(path),
            format!("a parameter must be a mapping, got a {}", node.type_name()),
        );
        return None;
    };
    let before = ctx.errors.len();
    let mut f = Fields::new(entries, node.mark, path);
    let what = format!("parameter {path} of {user}");
    let name = decode_param_name(ctx, &mut f, item, &what);
    let param_type = decode_param_type(ctx, &mut f, &what);
    let mut p = Parameter::new(name, param_type.unwrap_or(ParamType::String)).role(role);
    p.description = if ctx.descriptions_optional {
        f.string(ctx, "description").map(|(s, _)| s).unwrap_or_default()
    } else {
        // As Toolbox 1.12, which refuses a parameter, item or prompt argument without
        // one (or with an empty one): the model would be told nothing about it.
        let d = f.required_string(ctx, "description", &what);
        if let Some((d, m)) = &d
            && d.trim().is_empty()
        {
            ctx.err(
                K::MissingField,
                *m,
                Some(&f.path("description")),
                format!("{what} has an empty 'description'"),
            );
        }
        d.map(|(s, _)| s).unwrap_or_default()
    };
    let required = f.boolean(ctx, "required");
    let default = f.get("default").map(|e| (e.value.to_json(), e.value.mark));
    if !item {
        // Items "should not have a default or required value; if provided, it is ignored".
        p.required = required.unwrap_or(true);
    }
    decode_value_lists(ctx, &mut f, &mut p);
    decode_items(ctx, &mut f, &mut p, param_type.is_some(), role, refs, user);
    decode_value_type(ctx, &mut f, &mut p);
    decode_escape(ctx, &mut f, &mut p, role);
    decode_bounds(ctx, &mut f, &mut p);
    decode_auth_sources(ctx, &mut f, &mut p, refs, user);
    decode_embedded_by(ctx, &mut f, &mut p, param_type, refs, user);
    // Checked against the tool's other parameters once all are decoded.
    p.value_from_param = f.string(ctx, "valueFromParam").map(|(s, _)| s);
    f.report_unknown(ctx, &format!("parameter '{}'", p.name));
    if ctx.errors.len() > before || param_type.is_none() {
        return None;
    }
    if let (false, Some((d, m))) = (item, default) {
        // Only a parameter free of other errors is checked against its own default.
        p.default = Some(check_default(ctx, &f, &p, d, m)?);
    }
    Some(p)
}

/// The parameter's `name` (required unless `item`, which defaults to "item"), checked.
fn decode_param_name(ctx: &mut Ctx<'_>, f: &mut Fields<'_>, item: bool, what: &str) -> String {
    let name = if item { f.string(ctx, "name") } else { f.required_string(ctx, "name", what) };
    if let Some((n, m)) = &name
        && !is_valid_name(n)
    {
        let message = format!(
            "invalid parameter name '{}': use 1 to {MAX_NAME_LEN} of the characters A-Z a-z 0-9 _ . -",
            short(n)
        );
        ctx.err(K::InvalidName, *m, Some(&f.path("name")), message);
    }
    name.map_or_else(|| if item { "item".to_string() } else { String::new() }, |(n, _)| n)
}

/// The parameter's `type`; none when it is missing or unknown (reported).
fn decode_param_type(ctx: &mut Ctx<'_>, f: &mut Fields<'_>, what: &str) -> Option<ParamType> {
    let (t, m) = f.required_string(ctx, "type", what)?;
    let parsed = ParamType::parse(&t);
    if parsed.is_none() {
        ctx.err(K::InvalidValue, m, Some(&f.path("type")), format!("unknown parameter type '{}' (expected string, integer, float, boolean, array or map)", short(&t)));
    }
    parsed
}

/// `allowedValues` and `excludedValues`: lists of values or patterns.
fn decode_value_lists(ctx: &mut Ctx<'_>, f: &mut Fields<'_>, p: &mut Parameter) {
    type Matcher = fn(Value) -> ValueMatcher;
    let allowed: Matcher = ValueMatcher::allowed;
    let excluded: Matcher = ValueMatcher::excluded;
    for (key, target, matcher) in [
        ("allowedValues", &mut p.allowed_values, allowed),
        ("excludedValues", &mut p.excluded_values, excluded),
    ] {
        if let Some(entries) = f.list(ctx, key, "values") {
            *target = entries.iter().map(|n| matcher(n.to_json())).collect();
        }
    }
}

/// An array's `items` (itself a parameter), required of arrays and refused elsewhere;
/// `typed` says whether the parameter's own type was valid.
fn decode_items(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    p: &mut Parameter,
    typed: bool,
    role: ParamRole,
    refs: &mut Vec<Ref>,
    user: &str,
) {
    let t = p.param_type;
    if let Some(e) = f.get("items") {
        if t == ParamType::Array {
            let items_path = f.path("items");
            p.items =
                decode_param(ctx, &e.value, &items_path, role, true, refs, user).map(Box::new);
        } else {
            ctx.err(
                K::InvalidValue,
                e.key_mark,
                Some(&f.path("items")),
                format!("'items' applies to array parameters; '{}' is {t}", p.name),
            );
        }
    } else if t == ParamType::Array && typed {
        ctx.err(
            K::MissingField,
            f.mark,
            Some(&f.path("items")),
            format!("array parameter '{}' needs 'items'", p.name),
        );
    }
}

/// A map's `valueType` (a scalar type), refused elsewhere.
fn decode_value_type(ctx: &mut Ctx<'_>, f: &mut Fields<'_>, p: &mut Parameter) {
    let t = p.param_type;
    if let Some((v, m)) = f.string(ctx, "valueType") {
        match ParamType::parse(&v).filter(|v| v.is_scalar()) {
            Some(vt) if t == ParamType::Map => p.value_type = Some(vt),
            Some(_) => ctx.err(
                K::InvalidValue,
                m,
                Some(&f.path("valueType")),
                format!("'valueType' applies to map parameters; '{}' is {t}", p.name),
            ),
            None => ctx.err(
                K::InvalidValue,
                m,
                Some(&f.path("valueType")),
                format!(
                    "unknown value type '{}' (expected string, integer, float or boolean)",
                    short(&v)
                ),
            ),
        }
    }
}

/// `escape`, for template parameters of strings or arrays of strings only, in a mode
/// that is a quoting of the tool's SQL dialect (`ctx.dialect`), which the parameter
/// keeps: its values are quoted for that dialect (`Escape::quote`).
fn decode_escape(ctx: &mut Ctx<'_>, f: &mut Fields<'_>, p: &mut Parameter, role: ParamRole) {
    let t = p.param_type;
    if let Some((v, m)) = f.string(ctx, "escape") {
        let string_items = p.items.as_ref().is_some_and(|i| i.param_type == ParamType::String);
        match Escape::parse(&v) {
            // Toolbox defines `escape` for template parameters, whose values are
            // spliced into the statement. A bound value is data: quoting it would
            // store `'it''s'` for `it's`, so it is refused rather than ignored.
            Some(_) if role != ParamRole::Template => ctx.err(K::InvalidValue, m, Some(&f.path("escape")), format!("'escape' applies to template parameters (templateParameters), whose values are spliced into the statement; '{}' is declared in {}, so its value is bound as data and never needs escaping: remove 'escape'", p.name, role.field())),
            Some(e) if e.check_dialect(ctx.dialect).is_err() => {
                let problem = e.check_dialect(ctx.dialect).unwrap_err();
                ctx.err(K::InvalidValue, m, Some(&f.path("escape")), problem)
            }
            Some(e) if t == ParamType::String || string_items => {
                p.escape = Some(e);
                p.dialect = ctx.dialect;
            }
            Some(_) => ctx.err(K::InvalidValue, m, Some(&f.path("escape")), format!("'escape' applies to string parameters and arrays of strings; '{}' is {t}", p.name)),
            None => ctx.err(K::InvalidValue, m, Some(&f.path("escape")), format!("unknown escape '{}' (expected single-quotes, double-quotes, backticks or square-brackets)", short(&v))),
        }
    }
}

/// `minValue` and `maxValue`: numbers, for integer and float parameters, in order.
fn decode_bounds(ctx: &mut Ctx<'_>, f: &mut Fields<'_>, p: &mut Parameter) {
    let t = p.param_type;
    for key in ["minValue", "maxValue"] {
        let Some(e) = f.get(key) else { continue };
        let n = match e.value.value {
            Y::Int(i) => Some(Number::from(i)),
            Y::Float(x) => Number::from_f64(x),
            _ => None,
        };
        let Some(n) = n else {
            ctx.err(
                K::InvalidValue,
                e.value.mark,
                Some(&f.path(key)),
                format!("expected a number, got a {}", e.value.type_name()),
            );
            continue;
        };
        if !matches!(t, ParamType::Integer | ParamType::Float) {
            ctx.err(
                K::InvalidValue,
                e.key_mark,
                Some(&f.path(key)),
                format!("'{key}' applies to integer and float parameters; '{}' is {t}", p.name),
            );
            continue;
        }
        if key == "minValue" { p.min_value = Some(n) } else { p.max_value = Some(n) }
    }
    if let (Some(min), Some(max)) = (&p.min_value, &p.max_value)
        && min.as_f64() > max.as_f64()
    {
        ctx.err(
            K::InvalidValue,
            f.mark,
            Some(&f.path("minValue")),
            format!("minValue {min} is greater than maxValue {max}"),
        );
    }
}

/// `authServices` / `authSources`: `{name, field}` entries, each a reference to an
/// auth service checked once the whole configuration is decoded.
fn decode_auth_sources(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    p: &mut Parameter,
    refs: &mut Vec<Ref>,
    user: &str,
) {
    for key in ["authServices", "authSources"] {
        let Some(items) = f.list(ctx, key, "{name, field}") else { continue };
        for (i, a) in items.iter().enumerate() {
            let apath = format!("{}[{i}]", f.path(key));
            let Y::Map(entries) = &a.value else {
                ctx.err(
                    K::InvalidValue,
                    a.mark,
                    Some(&apath),
                    format!("expected {{name, field}}, got a {}", a.type_name()),
                );
                continue;
            };
            let mut af = Fields::new(entries, a.mark, &apath);
            let service =
                af.required_string(ctx, "name", &format!("auth source {apath} of {user}"));
            let field = af.required_string(ctx, "field", &format!("auth source {apath} of {user}"));
            af.report_unknown(ctx, &format!("auth source {apath}"));
            if let (Some((service, sm)), Some((field, _))) = (service, field) {
                refs.push(Ref {
                    target: ResourceKind::AuthService,
                    name: service.clone(),
                    user: format!("parameter '{}' of {user}", p.name),
                    field: format!("{apath}.name"),
                    location: ctx.loc(sm),
                    tool_type: None,
                });
                p.auth_services.push(AuthField { service, field });
            }
        }
    }
}

/// `embeddedBy`: a reference to an embedding model, for string parameters only
/// (`param_type` none: the type was already reported).
fn decode_embedded_by(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    p: &mut Parameter,
    param_type: Option<ParamType>,
    refs: &mut Vec<Ref>,
    user: &str,
) {
    let t = p.param_type;
    if let Some((model, m)) = f.string(ctx, "embeddedBy") {
        if param_type.is_some_and(|t| t != ParamType::String) {
            ctx.err(
                K::InvalidValue,
                m,
                Some(&f.path("embeddedBy")),
                format!("'embeddedBy' applies to string parameters; '{}' is {t}", p.name),
            );
        } else {
            refs.push(Ref {
                target: ResourceKind::EmbeddingModel,
                name: model.clone(),
                user: format!("parameter '{}' of {user}", p.name),
                field: f.path("embeddedBy"),
                location: ctx.loc(m),
                tool_type: None,
            });
            p.embedded_by = Some(model);
        }
    }
}

/// The `default` `d` (at `m`) when it is a valid value of `p`; none (reported) if not.
fn check_default(
    ctx: &mut Ctx<'_>,
    f: &Fields<'_>,
    p: &Parameter,
    d: Value,
    m: Mark,
) -> Option<Value> {
    match params::validate_value(p, &d) {
        Ok(_) => Some(d),
        Err(e) => {
            let reason = e
                .message()
                .strip_prefix(&format!("parameter '{}': ", p.name))
                .unwrap_or(e.message());
            ctx.err(
                K::InvalidValue,
                m,
                Some(&f.path("default")),
                format!("default of '{}' is invalid: {reason}", p.name),
            );
            None
        }
    }
}

/// Decodes a standalone parameter list (a skill descriptor's `inputs`) with the
/// same rules as a tool's `parameters`, located in `file`. `authServices` is refused:
/// a descriptor has no configuration to resolve it against, and a skill's inputs
/// come from the model.
pub(crate) fn decode_parameters(
    file: &str,
    node: &Node,
    field: &str,
) -> Result<Vec<Parameter>, Vec<ConfigError>> {
    let mut errors = Vec::new();
    let mut ctx = Ctx {
        file,
        text: "",
        document: 1,
        errors: &mut errors,
        descriptions_optional: true,
        dialect: None,
    };
    let mut out: Vec<Parameter> = Vec::new();
    let Some(items) = list_of(&mut ctx, node, field, "parameters") else { return Err(errors) };
    let mut refs = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("{field}[{i}]");
        let Some(p) =
            decode_param(&mut ctx, item, &path, ParamRole::Parameter, false, &mut refs, field)
        else {
            continue;
        };
        if out.iter().any(|q| q.name == p.name) {
            ctx.err(
                K::DuplicateName,
                item.mark,
                Some(&path),
                format!("parameter '{}' is declared twice", p.name),
            );
        }
        out.push(p);
    }
    for r in refs {
        errors.push(ConfigError {
            kind: K::InvalidValue,
            location: r.location,
            field: Some(r.field),
            message: format!(
                "names auth service '{}': authServices are not allowed here (these values come from the model)",
                r.name
            ),
        });
    }
    if errors.is_empty() { Ok(out) } else { Err(errors) }
}
