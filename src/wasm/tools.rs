//! `toolDefinitions()` and `callTool()`: the memory tools of
//! `controller::tools` for apps on the openai client. Converts and
//! delegates: a call is checked by the core when it is made, then runs as
//! the matching method (`remember`, `forget`) or as a queued recall, so it
//! takes its place in the queue like any other call.

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::controller::MemoryController;
use super::driver::spawn;
use super::options::Small;
use super::{js_error, to_js, to_json};
use crate::controller::tools::{self, ToolPlan};
use crate::controller::Need;
use crate::error::MemoryError;

fn field(value: &JsValue, name: &str) -> Option<String> {
    js_sys::Reflect::get(value, &name.into()).ok().and_then(|v| v.as_string())
}

#[wasm_bindgen]
impl MemoryController {
    /// The memory tools as OpenAI function tools: `remember` (`{ text, key?,
    /// kind? }`), `recall` (`{ query, k? }`) and `forget` (`{ id }`). Pass
    /// them as `tools` (or in `buildContext({ tools })`, which counts them)
    /// and run the model's calls with `callTool`. Their names and parameters
    /// are stable.
    ///
    /// With `{ search: true }`, a fourth: `search` (`{ query, scope?, k? }`),
    /// recall within a scope (`"thread"` or `"user"`) that includes the
    /// turns in working memory, for a host whose model does not see them
    /// (the MCP server).
    ///
    /// # Errors
    /// `INVALID_INPUT` for options other than `{ search?: boolean }`.
    #[wasm_bindgen(js_name = toolDefinitions, unchecked_return_type = "ToolDefinition[]")]
    pub fn tool_definitions(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "{ search?: boolean }")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let search = Small::read(&options, &["search"])?.flag("search")?.unwrap_or(false);
        to_js(&tools::definitions(search))
    }

    /// Runs one memory tool call and resolves to its result, the text to
    /// send back as the tool message's content. `args` is the JSON string
    /// the model sent (`call.function.arguments`) or an object.
    ///
    /// What the model got wrong (arguments that are not a JSON object, a
    /// missing or mistyped field, an unknown kind, a text over 1000 tokens,
    /// an id this memory did not issue, a key or a message id given to
    /// `forget`) resolves to a text starting "Error:" and changes nothing, so
    /// the model can correct itself. A recall result is one escaped
    /// `<memory>` block of at most `recallTokens` tokens (default 500).
    ///
    /// Rejects with a `MemoryError`: `INVALID_INPUT` when `name` is not
    /// `remember`, `recall`, `forget` or `search`, `args` is neither a string nor an
    /// object, or `recallTokens` is below 100; `STORAGE_*` when saving fails
    /// (nothing changed); `CLOSED`.
    #[wasm_bindgen(js_name = callTool, unchecked_return_type = "Promise<string>")]
    pub fn call_tool(
        &self,
        name: String,
        #[wasm_bindgen(unchecked_param_type = "string | Record<string, unknown>")] args: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ recallTokens?: number }")] options: JsValue,
    ) -> Async {
        match self.start_tool_call(name, args, options) {
            Ok(promise) => Ok(promise),
            // Every failure is a rejection, never a throw.
            Err(e) => Ok(Promise::reject(&e)),
        }
    }
}

impl MemoryController {
    fn start_tool_call(&self, name: String, args: JsValue, options: JsValue) -> Result<Promise, JsValue> {
        let recall_tokens = Small::read(&options, &["recallTokens"])?.size("recallTokens")?;
        let json = match args.as_string() {
            Some(text) => text,
            None if args.is_object() => to_json(&args, "args")?,
            None => return Err(js_error(MemoryError::input("args", "expected the JSON string the model sent, or an object"))),
        };
        let plan = self.driver.path.held().plan_tool_call(&name, &json).map_err(js_error)?;
        // Remember and forget run as the methods of those names; one future
        // turns what they resolve to into the tool's answer.
        let (done, id, answer): (Promise, String, fn(&JsValue, &str) -> String) = match plan {
            // Nothing to change: the answer is known now.
            ToolPlan::Answer(text) => return Ok(Promise::resolve(&JsValue::from(text))),
            ToolPlan::Recall { query, k, scope } => {
                let d = self.driver.clone();
                let budget = recall_tokens.unwrap_or(tools::RECALL_TOKENS);
                return Ok(self.driver.enqueue(Box::pin(async move {
                    let reading = d.path.read(Need::Everything).await?;
                    // An embedder failure leaves recall lexical, as in `search`.
                    let vector = d.embed_query(&query, &reading).await.ok().flatten();
                    let text = d.path.controller_mut(&reading).recall(&query, k, scope, vector.as_deref(), budget).map_err(js_error)?;
                    Ok(text.into())
                })));
            }
            ToolPlan::Remember(input) => {
                let input = serde_json::json!({ "text": input.text, "key": input.key, "kind": input.kind, "source": input.source });
                (self.remember(to_js(&input)?)?, String::new(), |r, _| {
                    let preference = field(r, "kind").as_deref() == Some("preference");
                    tools::remembered_text(&field(r, "id").unwrap_or_default(), preference, field(r, "superseded").as_deref())
                })
            }
            ToolPlan::Forget { id } => (self.forget(JsValue::from_str(&id))?, id, |r, id| {
                let facts = js_sys::Reflect::get(r, &"facts".into()).ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
                tools::forgotten_text(id, facts as usize)
            }),
        };
        Ok(spawn(Box::pin(async move { Ok(answer(&JsFuture::from(done).await?, &id).into()) })))
    }
}

/// As in controller.rs: several return values, never one `externref` (see there).
type Async = Result<Promise, JsValue>;
