//! The wasm adapters: each export deserializes, calls the core, serializes. No policy here.
//! Payloads cross as JSON strings in both directions: one crossing per step, no per-field
//! object marshalling.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use crate::engine::{CallError, Engine as Core};

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let msg = info.to_string();
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(msg));
        }))
    });
}

#[wasm_bindgen]
extern "C" {
    /// A JS `Error`, given the call error's kind as a property of its own (`err.kind`): the
    /// glue reads it, never parses the message.
    #[wasm_bindgen(js_name = Error)]
    type KindError;
    #[wasm_bindgen(constructor, js_class = "Error")]
    fn new(message: &str) -> KindError;
    #[wasm_bindgen(method, setter, js_class = "Error")]
    fn set_kind(this: &KindError, kind: &str);
}

fn js_error(e: CallError) -> JsValue {
    let err = KindError::new(&e.message);
    err.set_kind(e.kind);
    err.into()
}

fn step_json<T: serde::Serialize>(t: &T) -> String {
    serde_json::to_string(t).unwrap_or_else(|e| {
        format!(r#"{{"done":{{"op":0,"result":{{"error":"{e}"}},"cancel":[]}}}}"#)
    })
}

/// A step, with the steps of other operations it woke (MCP answers) as `"woken": [...]`.
fn with_woken(step: &crate::runtime::Step, woken: Vec<crate::runtime::Step>) -> String {
    let own = step_json(step);
    if woken.is_empty() {
        return own;
    }
    // `{"pending":…}` / `{"done":…}` + `,"woken":[…]}`
    format!(
        "{},\"woken\":{}}}",
        &own[..own.len() - 1],
        step_json(&woken)
    )
}

#[wasm_bindgen]
pub struct Engine {
    inner: Core,
}

#[wasm_bindgen]
impl Engine {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Engine {
        install_panic_hook();
        // the policy build answers host events with the command-hook translator
        #[cfg(feature = "policy")]
        let inner = crate::command_hook::engine();
        #[cfg(not(feature = "policy"))]
        let inner = Core::new();
        Engine { inner }
    }

    /// Start a hook call (UTF-8 JSON bytes: the host encodes natively, no per-character
    /// copy loop) at host time `now_ms` (ms since the epoch). Returns the step (JSON).
    pub fn start(&mut self, call: &[u8], now_ms: f64) -> Result<String, JsValue> {
        self.inner.observe_now(now_ms);
        let step = self.inner.start_json(call).map_err(js_error)?;
        Ok(with_woken(&step, self.inner.take_woken()))
    }

    /// Hand back replies of operation `op` (UTF-8 JSON `[[id, reply], …]`: whatever finished
    /// together, in one crossing), with `bytes` that replies may name as `{"blob": [offset,
    /// length]}` (files read as raw bytes; empty when none). Returns the next step (JSON), or
    /// an empty string when nothing waits for those replies.
    pub fn resume(
        &mut self,
        op: u32,
        replies: &[u8],
        bytes: &[u8],
        now_ms: f64,
    ) -> Result<String, JsValue> {
        self.inner.observe_now(now_ms);
        let step = self
            .inner
            .resume_with_bytes(op as u64, replies, bytes)
            .map_err(js_error)?;
        let woken = self.inner.take_woken();
        match step {
            Some(s) => Ok(with_woken(&s, woken)),
            // Nothing of its own, but what it woke still goes out.
            None if !woken.is_empty() => Ok(format!(r#"{{"woken":{}}}"#, step_json(&woken))),
            None => Ok(String::new()),
        }
    }

    /// Give up on an operation. Returns the ids of its requests to cancel (JSON array).
    /// Steps it woke come with the next `mcpWoken`.
    pub fn abandon(&mut self, op: u32) -> String {
        step_json(&self.inner.abandon(op as u64))
    }

    /// Stdout bytes of MCP session `session`, as they came. Returns the steps of the
    /// operations they woke (JSON array).
    #[cfg(feature = "policy")]
    #[wasm_bindgen(js_name = mcpFeed)]
    pub fn mcp_feed(&mut self, session: u32, bytes: &[u8], now_ms: f64) -> String {
        self.inner.observe_now(now_ms);
        self.inner.mcp_feed(session as u64, bytes);
        step_json(&self.inner.take_woken())
    }

    /// MCP session `session` ended (`{code?, signal?, error?, stderr?}` as JSON). Returns the
    /// steps of the operations this woke (JSON array).
    #[cfg(feature = "policy")]
    #[wasm_bindgen(js_name = mcpClosed)]
    pub fn mcp_closed(&mut self, session: u32, info: &str, now_ms: f64) -> String {
        self.inner.observe_now(now_ms);
        let info = serde_json::from_slice(info.as_bytes()).unwrap_or(serde_json::Value::Null);
        self.inner.mcp_closed(session as u64, &info);
        step_json(&self.inner.take_woken())
    }

    /// Steps woken by anything since (an `abandon`). JSON array.
    #[wasm_bindgen(js_name = mcpWoken)]
    pub fn mcp_woken(&mut self) -> String {
        step_json(&self.inner.take_woken())
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

/// The message of the last Rust panic, if any (a panic aborts the call as a JS exception).
#[wasm_bindgen(js_name = lastPanic)]
pub fn last_panic() -> Option<String> {
    LAST_PANIC.with(|p| p.borrow_mut().take())
}

/// Panics on purpose: lets the tests prove a panic surfaces as a caught JS error.
#[wasm_bindgen(js_name = __panicForTests)]
pub fn panic_for_tests(msg: &str) {
    install_panic_hook();
    panic!("{msg}");
}
