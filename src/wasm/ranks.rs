//! Rank data for the exact counters, loaded once per encoding through the
//! loader the runtime entry registers (js/internal/loader.js: the package's file, or
//! what the host passed as `create({ ranks })`) and kept for the life of the
//! wasm instance.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::js_error;
use crate::error::MemoryError;
use crate::tokens::exact::{Bpe, Encoding};

#[wasm_bindgen(typescript_custom_section)]
const TS_RANKS: &str = r#"
/**
 * A rank file (`ranks/o200k_base.bin`, `ranks/cl100k_base.bin` in the
 * package): its bytes (gzip as shipped, or already decompressed), a `Response`,
 * or where to get it: a URL or string to fetch (in Node, a `file:` URL or a
 * path is read from disk).
 */
export type RankSource = Uint8Array | ArrayBuffer | Response | URL | string;
/** The encodings with exact counters; `create` picks one from the model. */
export type RankEncoding = "o200k_base" | "cl100k_base";
"#;

thread_local! {
    static LOADER: RefCell<Option<Function>> = const { RefCell::new(None) };
    static LOADED: RefCell<Vec<Rc<Bpe>>> = const { RefCell::new(Vec::new()) };
}

/// Registers `(encoding, source) => Promise<Uint8Array>`, which returns the
/// uncompressed rank file: from `source` (the `ranks` option of `create`)
/// when given, else the package's own. js/internal/loader.js calls this; apps do not.
#[wasm_bindgen(js_name = setRankLoader)]
pub fn set_rank_loader(
    #[wasm_bindgen(
        unchecked_param_type = "(encoding: RankEncoding, source: RankSource | ((encoding: RankEncoding) => RankSource | Promise<RankSource>) | undefined) => Promise<Uint8Array>"
    )]
    loader: Function,
) {
    LOADER.with(|l| *l.borrow_mut() = Some(loader));
}

fn cached(encoding: Encoding) -> Option<Rc<Bpe>> {
    LOADED.with(|l| l.borrow().iter().find(|b| b.encoding() == encoding).cloned())
}

/// The tokenizer for `encoding`, loading its ranks from `source` (undefined:
/// the package's file) on first use; once loaded, `source` is not consulted.
pub(crate) async fn load(encoding: Encoding, source: &JsValue) -> Result<Rc<Bpe>, JsValue> {
    if let Some(bpe) = cached(encoding) {
        return Ok(bpe);
    }
    let fail = |reason: &str| js_error(MemoryError::TokenizerLoad { encoding: encoding.name().into(), reason: reason.into() });
    let loader =
        LOADER.with(|l| l.borrow().clone()).ok_or_else(|| fail("no rank loader registered; import the package entry, not the raw wasm"))?;
    // The loader rejects with a MemoryError of its own (TOKENIZER_LOAD, or
    // INVALID_INPUT for a bad `ranks`), passed on as it is.
    let promise = loader.call2(&JsValue::NULL, &encoding.name().into(), source)?;
    let bytes = JsFuture::from(Promise::resolve(&promise)).await?;
    let bytes = bytes.dyn_into::<Uint8Array>().map_err(|_| fail("the loader did not return a Uint8Array"))?.to_vec();
    let bpe = Rc::new(Bpe::from_asset(encoding, &bytes).map_err(js_error)?);
    // Another load may have finished while this one awaited: keep the first.
    if let Some(existing) = cached(encoding) {
        return Ok(existing);
    }
    LOADED.with(|l| l.borrow_mut().push(bpe.clone()));
    Ok(bpe)
}
