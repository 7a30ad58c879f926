//! The host's storage adapter: raw bindings, then an async wrapper that
//! speaks core types (`Key`, bytes) and core errors.

use js_sys::{Array, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::js_error;
use crate::error::MemoryError;
use crate::store::Key;

#[wasm_bindgen]
extern "C" {
    /// `{ load, save, remove, loadRange, removeRange }`, all async.
    #[derive(Clone)]
    pub type JsStorageAdapter;

    #[wasm_bindgen(method, catch)]
    fn save(this: &JsStorageAdapter, key: Array, data: Uint8Array) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch)]
    fn remove(this: &JsStorageAdapter, key: Array) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = loadRange)]
    fn load_range(this: &JsStorageAdapter, prefix: Array) -> Result<Promise, JsValue>;
    #[wasm_bindgen(method, catch, js_name = removeRange)]
    fn remove_range(this: &JsStorageAdapter, prefix: Array) -> Result<Promise, JsValue>;
}

fn key_array(key: &[String]) -> Array {
    key.iter().map(|s| JsValue::from_str(s)).collect()
}

/// An adapter's own MemoryError (e.g. STORAGE_QUOTA) passes through; any
/// other failure becomes STORAGE_ERROR with the original as `cause`.
fn failure(op: &str, e: JsValue) -> JsValue {
    if Reflect::get(&e, &"name".into()).ok().and_then(|n| n.as_string()).as_deref() == Some("MemoryError") {
        return e;
    }
    let reason = Reflect::get(&e, &"message".into()).ok().and_then(|m| m.as_string()).unwrap_or_else(|| format!("{e:?}"));
    let err = js_error(MemoryError::Storage { op: op.to_string(), reason });
    let _ = Reflect::set(&err, &"cause".into(), &e);
    err
}

/// Awaits what an adapter method returned. Through `Promise.resolve`: an
/// adapter that returns a plain value (not a promise) would otherwise make
/// `then` throw inside a microtask, an uncaught exception that ends Node.
async fn settle(op: &str, p: Result<Promise, JsValue>) -> Result<JsValue, JsValue> {
    let p = Promise::resolve(&p.map_err(|e| failure(op, e))?);
    JsFuture::from(p).await.map_err(|e| failure(op, e))
}

/// The adapter, checked to have the five methods.
#[derive(Clone)]
pub struct Storage(JsStorageAdapter);

impl Storage {
    /// # Errors
    /// `INVALID_INPUT` naming a missing method.
    pub fn from_js(value: JsValue) -> Result<Storage, JsValue> {
        for m in ["load", "save", "remove", "loadRange", "removeRange"] {
            if !Reflect::get(&value, &m.into()).map(|f| f.is_function()).unwrap_or(false) {
                return Err(js_error(MemoryError::input(
                    format!("options.storage.{m}"),
                    "the storage adapter must have this async method",
                )));
            }
        }
        Ok(Storage(value.unchecked_into()))
    }

    pub async fn save(&self, key: &[String], bytes: &[u8]) -> Result<(), JsValue> {
        settle("save", self.0.save(key_array(key), Uint8Array::from(bytes))).await.map(|_| ())
    }

    pub async fn remove(&self, key: &[String]) -> Result<(), JsValue> {
        settle("remove", self.0.remove(key_array(key))).await.map(|_| ())
    }

    pub async fn remove_range(&self, prefix: &[String]) -> Result<(), JsValue> {
        settle("removeRange", self.0.remove_range(key_array(prefix))).await.map(|_| ())
    }

    /// The values under `prefix`, read into `loader` one at a time: only
    /// one value's bytes are copied into wasm memory at once.
    pub async fn load_into(&self, prefix: &[String], loader: &mut crate::store::Loader) -> Result<(), JsValue> {
        let got = settle("loadRange", self.0.load_range(key_array(prefix))).await?;
        let bad = || {
            js_error(MemoryError::Storage {
                op: "loadRange".into(),
                reason: "expected an array of { key: string[], data: Uint8Array }".into(),
            })
        };
        let entries: Array = got.dyn_into().map_err(|_| bad())?;
        for entry in entries.iter() {
            let key: Array = Reflect::get(&entry, &"key".into()).map_err(|_| bad())?.dyn_into().map_err(|_| bad())?;
            let key: Option<Key> = key.iter().map(|s| s.as_string()).collect();
            let data: Uint8Array = Reflect::get(&entry, &"data".into()).map_err(|_| bad())?.dyn_into().map_err(|_| bad())?;
            loader.push(key.ok_or_else(bad)?, &data.to_vec()).map_err(js_error)?;
        }
        Ok(())
    }
}
