//! Option objects as JS passes them, and their mapping to core types.
//! `create`'s: the hooks (functions, adapters) are taken off the object
//! before it is read as JSON (JSON.stringify would drop a function and may
//! throw on a binding), the rest is `controller::CreateOptions`.

use js_sys::{Object, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::from_js;

/// Option names that hold hooks, not data (`ranks` may be bytes or a
/// function, `redact` a policy or a function).
const HOOKS: [&str; 6] = ["clock", "storage", "embedder", "summarizer", "ranks", "redact"];

/// An options object (`add`'s `{ taskId }`, `recordUsage`'s `{ model }`,
/// `budgetAwareMaxTokens`' `{ promptTokens, floor }`),
/// read by hand: a derived deserializer per struct costs the wasm more.
pub struct Small(serde_json::Map<String, Value>, &'static str);

impl Small {
    /// # Errors
    /// `INVALID_INPUT` for a non-object or a key outside `keys`.
    pub fn read(value: &JsValue, keys: &[&str]) -> Result<Small, JsValue> {
        Small::of(read::<Value>(value, "options")?, "options", keys)
    }

    /// The object `value` (null: empty), found at `at`.
    ///
    /// # Errors
    /// `INVALID_INPUT` for a non-object or a key outside `keys`.
    pub fn of(value: Value, at: &'static str, keys: &[&str]) -> Result<Small, JsValue> {
        let bad = |why: String| super::js_error(crate::error::MemoryError::input(at, why));
        match value {
            Value::Null => Ok(Small(serde_json::Map::new(), at)),
            Value::Object(o) => match o.keys().find(|k| !keys.contains(&k.as_str())) {
                Some(k) => Err(bad(format!("unknown option {k:?} (expected {})", keys.join(", ")))),
                None => Ok(Small(o, at)),
            },
            _ => Err(bad("expected an object".into())),
        }
    }

    fn bad(&self, key: &str, why: &str) -> JsValue {
        super::js_error(crate::error::MemoryError::input(format!("{}.{key}", self.1), why))
    }

    pub fn number(&self, key: &str) -> Result<Option<f64>, JsValue> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v.as_f64().map(Some).ok_or_else(|| self.bad(key, "expected a number")),
        }
    }

    pub fn string(&self, key: &str) -> Result<Option<String>, JsValue> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.bad(key, "expected a string")),
        }
    }

    pub fn size(&self, key: &str) -> Result<Option<usize>, JsValue> {
        Ok(self.count(key)?.map(|n| n as usize))
    }

    /// An array (of anything), or absent.
    pub fn list(&self, key: &str) -> Result<Vec<Value>, JsValue> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(a)) => Ok(a.clone()),
            Some(_) => Err(self.bad(key, "expected an array")),
        }
    }

    /// An array of strings, or absent.
    pub fn strings(&self, key: &str) -> Result<Vec<String>, JsValue> {
        self.list(key)?
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                _ => Err(self.bad(key, "expected an array of strings")),
            })
            .collect()
    }

    pub fn flag(&self, key: &str) -> Result<Option<bool>, JsValue> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(self.bad(key, "expected true or false")),
        }
    }

    /// Whether `key` is present and not null.
    pub fn has(&self, key: &str) -> bool {
        self.0.get(key).is_some_and(|v| !v.is_null())
    }

    pub fn count(&self, key: &str) -> Result<Option<u64>, JsValue> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or_else(|| self.bad(key, "expected a non-negative whole number")),
        }
    }
}

/// `search`'s options, read by hand (see [`Small`]).
pub fn search_options(value: &JsValue) -> Result<crate::controller::SearchOptions, JsValue> {
    use crate::controller::Scope;
    let o = Small::read(value, &["k", "kinds", "tags", "from", "to", "scope", "asOf"])?;
    let strings = |key| if o.has(key) { o.strings(key).map(Some) } else { Ok(None) };
    let scope = match o.string("scope")?.as_deref() {
        None | Some("user") => Scope::User,
        Some("thread") => Scope::Thread,
        Some(_) => return Err(o.bad("scope", "expected \"thread\" or \"user\"")),
    };
    let held = o.number("asOf")?.map_or(crate::controller::Held::Now, |t| crate::controller::Held::During(t, t));
    Ok(crate::controller::SearchOptions {
        scope,
        k: o.size("k")?,
        kinds: strings("kinds")?,
        tags: strings("tags")?,
        from: o.number("from")?,
        to: o.number("to")?,
        held,
    })
}

/// Reads an optional options object of type `T` (undefined/null → default).
pub fn read<T: serde::de::DeserializeOwned + Default>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    from_js(value, what)
}

/// Splits create options into data and the hook values.
pub fn split_hooks(options: &JsValue) -> Result<(JsValue, [JsValue; 6]), JsValue> {
    let mut hooks: [JsValue; 6] = Default::default();
    if options.is_undefined() || options.is_null() {
        return Ok((JsValue::UNDEFINED, hooks));
    }
    let data: Object = Object::assign(
        &Object::new(),
        &options
            .clone()
            .dyn_into::<Object>()
            .map_err(|_| super::js_error(crate::error::MemoryError::input("options", "expected an object")))?,
    );
    for (hook, h) in hooks.iter_mut().zip(HOOKS) {
        *hook = Reflect::get(&data, &h.into())?;
        Reflect::delete_property(&data, &h.into())?;
    }
    Ok((data.into(), hooks))
}
