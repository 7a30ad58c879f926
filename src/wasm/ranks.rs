//! Rank data for the exact counters, loaded once per encoding through the
//! loader the runtime entry registers (Node: the package's file; browser:
//! fetched next to the module; workerd: a bundled module) and kept for the
//! life of the wasm instance.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::js_error;
use crate::error::MemoryError;
use crate::tokens::exact::{Bpe, Encoding};

thread_local! {
    static LOADER: RefCell<Option<Function>> = const { RefCell::new(None) };
    static LOADED: RefCell<Vec<Rc<Bpe>>> = const { RefCell::new(Vec::new()) };
}

/// Registers `(encoding: string) => Promise<Uint8Array>`, which returns the
/// uncompressed rank asset. Runtime entries call this; apps do not need to.
#[wasm_bindgen(js_name = setRankLoader)]
pub fn set_rank_loader(#[wasm_bindgen(unchecked_param_type = "(encoding: string) => Promise<Uint8Array>")] loader: Function) {
    LOADER.with(|l| *l.borrow_mut() = Some(loader));
}

fn cached(encoding: Encoding) -> Option<Rc<Bpe>> {
    LOADED.with(|l| l.borrow().iter().find(|b| b.encoding() == encoding).cloned())
}

/// The tokenizer for `encoding`, loading its ranks on first use.
pub(crate) async fn load(encoding: Encoding) -> Result<Rc<Bpe>, JsValue> {
    if let Some(bpe) = cached(encoding) {
        return Ok(bpe);
    }
    let fail = |reason: String| js_error(MemoryError::TokenizerLoad { encoding: encoding.name().into(), reason });
    let loader = LOADER.with(|l| l.borrow().clone()).ok_or_else(|| fail("no rank loader registered; import the package entry, not the raw wasm".into()))?;
    let promise = loader.call1(&JsValue::NULL, &encoding.name().into()).map_err(|e| fail(format!("{e:?}")))?;
    let bytes = JsFuture::from(Promise::resolve(&promise)).await.map_err(|e| fail(format!("{e:?}")))?;
    let bytes = bytes.dyn_into::<Uint8Array>().map_err(|_| fail("the loader did not return a Uint8Array".into()))?.to_vec();
    let bpe = Rc::new(Bpe::from_asset(encoding, &bytes).map_err(js_error)?);
    // Another load may have finished while this one awaited: keep the first.
    if let Some(existing) = cached(encoding) {
        return Ok(existing);
    }
    LOADED.with(|l| l.borrow_mut().push(bpe.clone()));
    Ok(bpe)
}
