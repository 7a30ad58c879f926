//! A pragmatic JSON Schema checker for tool `parameters`: what the
//! function-calling APIs (OpenAI and compatible) accept, not all of JSON
//! Schema.
//!
//! Invariants: checking is pure, total and bounded: it never panics, never
//! follows a `$ref` (it only checks that the reference resolves, so cyclic
//! references cannot loop) and refuses subschemas nested deeper than
//! [`MAX_DEPTH`], so its recursion is bounded whatever the input. Every error
//! is an `InvalidToolSchema` naming the tool and a dotted path that starts at
//! `parameters` (`parameters.properties.unit.enum`, `…required[1]`). Unknown
//! keywords are ignored; a known keyword with a value of the wrong JSON type
//! is an error.

use serde_json::{Map, Value};

use crate::error::{MemoryError, Result};

/// Subschemas may nest this deep (the root is depth 0); deeper is refused.
pub const MAX_DEPTH: usize = 32;

const TYPES: [&str; 7] = ["string", "number", "integer", "boolean", "object", "array", "null"];

/// Checks a tool's `parameters`: an object schema (`type: "object"`) whose
/// every subschema is well formed. With `strict`, also OpenAI's
/// structured-output rules: every object schema has `additionalProperties:
/// false` and lists all its properties in `required`.
///
/// # Errors
/// `InvalidToolSchema` naming `tool` and the path of the first problem.
pub fn check_parameters(tool: &str, params: &Value, strict: bool) -> Result<()> {
    let cx = Cx { tool, root: params, strict };
    if !params.is_object() {
        return Err(cx.err("parameters", "expected a JSON Schema object"));
    }
    if params.get("type").and_then(Value::as_str) != Some("object") {
        return Err(cx.err("parameters.type", "the root schema must have type \"object\""));
    }
    cx.schema(params, "parameters", 0)
}

struct Cx<'a> {
    tool: &'a str,
    root: &'a Value,
    strict: bool,
}

impl Cx<'_> {
    fn err(&self, path: impl Into<String>, reason: impl Into<String>) -> MemoryError {
        MemoryError::InvalidToolSchema { tool: self.tool.to_string(), path: path.into(), reason: reason.into() }
    }

    fn schema(&self, v: &Value, path: &str, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(self.err(path, format!("subschemas nest deeper than {MAX_DEPTH} levels")));
        }
        let s = v.as_object().ok_or_else(|| self.err(path, "expected a schema object"))?;
        let types = match s.get("type") {
            Some(t) => Some(self.types(t, &format!("{path}.type"))?),
            None => None,
        };
        let sub = depth + 1;
        for (key, val) in s {
            let p = format!("{path}.{key}");
            match key.as_str() {
                "properties" | "$defs" | "definitions" | "patternProperties" => {
                    let map = val.as_object().ok_or_else(|| self.err(&p, "expected an object of schemas"))?;
                    for (name, child) in map {
                        self.schema(child, &format!("{p}.{name}"), sub)?;
                    }
                }
                "items" if val.is_array() => self.list(val, &p, sub, false)?,
                "items" | "not" | "contains" | "propertyNames" => self.schema(val, &p, sub)?,
                "prefixItems" => self.list(val, &p, sub, false)?,
                "anyOf" | "oneOf" | "allOf" => self.list(val, &p, sub, true)?,
                "additionalProperties" | "additionalItems" | "unevaluatedProperties" | "unevaluatedItems" if !val.is_boolean() => {
                    self.schema(val, &p, sub)?
                }
                "required" => self.required(val, s.get("properties"), &p)?,
                "enum" => {
                    let items = val.as_array().ok_or_else(|| self.err(&p, "expected an array"))?;
                    if items.is_empty() {
                        return Err(self.err(&p, "must not be empty"));
                    }
                    for (i, item) in items.iter().enumerate() {
                        self.typed(item, types.as_deref(), &format!("{p}[{i}]"))?;
                    }
                }
                "const" => self.typed(val, types.as_deref(), &p)?,
                "$ref" => self.reference(val, &p)?,
                _ => {
                    if let Some(expected) = scalar_mismatch(key, val) {
                        return Err(self.err(&p, format!("expected {expected}")));
                    }
                }
            }
        }
        self.bounds(s, path)?;
        let is_object = types.as_ref().is_some_and(|t| t.contains(&"object")) || s.contains_key("properties");
        if self.strict && is_object {
            self.strict_object(s, path)?;
        }
        Ok(())
    }

    /// `type`: one known type name, or a non-empty array of unique ones.
    fn types<'v>(&self, t: &'v Value, path: &str) -> Result<Vec<&'v str>> {
        let known = |s: &'v str, p: &str| match TYPES.contains(&s) {
            true => Ok(s),
            false => Err(self.err(p, format!("unknown type {s:?}: expected one of {}", TYPES.join(", ")))),
        };
        match t {
            Value::String(s) => Ok(vec![known(s, path)?]),
            Value::Array(items) if !items.is_empty() => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    let p = format!("{path}[{i}]");
                    let s = known(item.as_str().ok_or_else(|| self.err(&p, "expected a type name"))?, &p)?;
                    if out.contains(&s) {
                        return Err(self.err(&p, format!("duplicate type {s:?}")));
                    }
                    out.push(s);
                }
                Ok(out)
            }
            Value::Array(_) => Err(self.err(path, "must not be empty")),
            _ => Err(self.err(path, "expected a type name or an array of them")),
        }
    }

    /// An array of subschemas (`anyOf`, `prefixItems`, tuple `items`).
    fn list(&self, v: &Value, path: &str, depth: usize, non_empty: bool) -> Result<()> {
        let items = v.as_array().ok_or_else(|| self.err(path, "expected an array of schemas"))?;
        if non_empty && items.is_empty() {
            return Err(self.err(path, "must not be empty"));
        }
        items.iter().enumerate().try_for_each(|(i, item)| self.schema(item, &format!("{path}[{i}]"), depth))
    }

    fn required(&self, v: &Value, properties: Option<&Value>, path: &str) -> Result<()> {
        let names = v.as_array().ok_or_else(|| self.err(path, "expected an array of property names"))?;
        let props = properties.and_then(Value::as_object);
        for (i, name) in names.iter().enumerate() {
            let p = format!("{path}[{i}]");
            let name = name.as_str().ok_or_else(|| self.err(&p, "expected a string"))?;
            if names.iter().take(i).any(|n| n.as_str() == Some(name)) {
                return Err(self.err(&p, format!("duplicate name {name:?}")));
            }
            if !props.is_some_and(|m| m.contains_key(name)) {
                return Err(self.err(&p, format!("{name:?} is not a key of properties")));
            }
        }
        Ok(())
    }

    /// An `enum` / `const` value must have one of the declared types.
    fn typed(&self, v: &Value, types: Option<&[&str]>, path: &str) -> Result<()> {
        match types {
            Some(types) if !types.iter().any(|t| has_type(v, t)) => {
                let kind = TYPES.into_iter().find(|t| has_type(v, t)).unwrap_or("null");
                Err(self.err(path, format!("a value of type {kind} does not have the declared type {}", types.join(" or "))))
            }
            _ => Ok(()),
        }
    }

    /// `$ref` must be a local reference (`#` or `#/…`) that resolves in the root.
    fn reference(&self, v: &Value, path: &str) -> Result<()> {
        let r = v.as_str().ok_or_else(|| self.err(path, "expected a string"))?;
        if r != "#" && !r.starts_with("#/") {
            return Err(self.err(path, format!("{r:?} is not a local reference (\"#/$defs/…\")")));
        }
        match self.root.pointer(&r[1..]) {
            Some(Value::Object(_)) => Ok(()),
            Some(_) => Err(self.err(path, format!("{r:?} does not point at a schema"))),
            None => Err(self.err(path, format!("{r:?} does not resolve"))),
        }
    }

    fn bounds(&self, s: &Map<String, Value>, path: &str) -> Result<()> {
        let pairs = [("minimum", "maximum"), ("minLength", "maxLength"), ("minItems", "maxItems"), ("minProperties", "maxProperties")];
        for (lo, hi) in pairs {
            if let (Some(a), Some(b)) = (s.get(lo).and_then(Value::as_f64), s.get(hi).and_then(Value::as_f64)) {
                if a > b {
                    return Err(self.err(format!("{path}.{lo}"), format!("{a} is greater than {hi} {b}")));
                }
            }
        }
        Ok(())
    }

    fn strict_object(&self, s: &Map<String, Value>, path: &str) -> Result<()> {
        if s.get("additionalProperties") != Some(&Value::Bool(false)) {
            return Err(self.err(format!("{path}.additionalProperties"), "strict mode requires additionalProperties: false"));
        }
        let required: Vec<&str> = s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let props = s.get("properties").and_then(Value::as_object).into_iter().flatten();
        match props.map(|(k, _)| k).find(|k| !required.contains(&k.as_str())) {
            Some(k) => {
                Err(self.err(format!("{path}.required"), format!("strict mode requires every property in required; {k:?} is missing")))
            }
            None => Ok(()),
        }
    }
}

/// What a scalar keyword's value should be, when `val` is not that; `None`
/// for a good value and for keywords that are not scalar or not known.
fn scalar_mismatch(key: &str, val: &Value) -> Option<&'static str> {
    let (ok, expected) = match key {
        "description" | "title" | "format" | "pattern" | "$comment" => (val.is_string(), "a string"),
        "minimum" | "maximum" => (val.is_number(), "a number"),
        // Draft 4 spelled these as booleans beside minimum/maximum.
        "exclusiveMinimum" | "exclusiveMaximum" => (val.is_number() || val.is_boolean(), "a number"),
        "multipleOf" => (val.as_f64().is_some_and(|x| x > 0.0), "a positive number"),
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" => {
            (count(val).is_some(), "a non-negative integer")
        }
        "uniqueItems" | "nullable" => (val.is_boolean(), "a boolean"),
        _ => return None,
    };
    (!ok).then_some(expected)
}

fn has_type(v: &Value, t: &str) -> bool {
    match t {
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|x| x.fract() == 0.0),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        _ => v.is_null(),
    }
}

/// A non-negative integer count; `3.0` counts, `-1` and `2.5` do not.
fn count(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| v.as_f64().filter(|x| *x >= 0.0 && x.fract() == 0.0).map(|x| x as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_and_integers_accept_whole_floats_only() {
        assert_eq!([json!(3), json!(3.0), json!(-1), json!(2.5), json!("3")].map(|v| count(&v)), [Some(3), Some(3), None, None, None]);
        assert!(has_type(&json!(2.0), "integer") && !has_type(&json!(2.5), "integer") && has_type(&json!(2.5), "number"));
    }
}
