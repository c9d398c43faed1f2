//! The async operations on the MCP session: start it (`ensure`), call a tool, probe, warm
//! up, shut down, and the `build_context`/tool-text answers built on them.

use super::*;

/// Drops the start when its operation goes away before the process is usable.
pub(super) struct StartGuard<'a> {
    h: &'a McpHandle,
    session: u64,
    armed: bool,
}

impl Drop for StartGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.h.0.borrow_mut().abandon_start(self.session);
        }
    }
}

/// Forgets a request whose caller went away, so a late answer is an unknown id.
pub(super) struct ForgetGuard<'a> {
    h: &'a McpHandle,
    session: u64,
    id: u64,
}

impl Drop for ForgetGuard<'_> {
    fn drop(&mut self) {
        self.h.0.borrow_mut().forget(self.session, self.id);
    }
}

pub(super) async fn stop_pending(io: &Io, h: &McpHandle) {
    let stops = h.0.borrow_mut().take_to_stop();
    if stops.is_empty() {
        return;
    }
    let grace_ms = h.0.borrow().opts.stop_grace_ms;
    join_all(
        stops
            .into_iter()
            .map(|session| io.request(Request::McpStop { session, grace_ms }))
            .collect(),
    )
    .await;
}

pub(super) async fn write(
    io: &Io,
    h: &McpHandle,
    session: u64,
    text: String,
) -> Result<(), McpError> {
    let reply = io.request(Request::McpWrite { session, text }).await;
    let mut hub = h.0.borrow_mut();
    hub.observe_reply_time(&reply);
    if reply.get("ok").and_then(Value::as_bool) == Some(false) {
        let e = reply
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("write failed")
            .to_string();
        hub.on_write_failed(session, &e);
        return Err(McpError::Write(e));
    }
    Ok(())
}

pub(super) async fn park(io: &Io, session: u64, id: u64) {
    io.request(Request::McpAwait {
        session,
        rpc_id: id,
    })
    .await;
}

/// A ready session: the current one, or a new one started now (lazily, on first need).
/// Waiting for a session that is starting is bounded by the start timeout.
pub async fn ensure(io: &Io, h: &McpHandle) -> Result<u64, McpError> {
    loop {
        stop_pending(io, h).await;
        let action = h.0.borrow_mut().next_action();
        match action {
            Action::Use(s) => {
                stop_pending(io, h).await;
                return Ok(s);
            }
            Action::Unavailable(r) => {
                stop_pending(io, h).await;
                return Err(McpError::Unavailable(r));
            }
            Action::Start { session, argv, env } => {
                let mut guard = StartGuard {
                    h,
                    session,
                    armed: true,
                };
                let reply = io.request(Request::McpStart { session, argv, env }).await;
                let init = h.0.borrow_mut().on_spawned(session, &reply);
                if let Some(text) = init {
                    // A failed write is recorded as the session's incident.
                    let _ = write(io, h, session, text).await;
                }
                guard.armed = false;
            }
            Action::Wait {
                session,
                key,
                deadline_ms,
            } => {
                let now = h.now();
                let left = deadline_ms.saturating_sub(now).max(1);
                if timeout(io, left, park(io, session, key)).await.is_none() {
                    h.observe_now(now + left);
                }
            }
        }
    }
}

pub(super) async fn wait_answer(
    io: &Io,
    h: &McpHandle,
    session: u64,
    id: u64,
) -> Result<Value, McpError> {
    loop {
        if let Some(r) = h.0.borrow_mut().poll_answer(session, id) {
            return r;
        }
        park(io, session, id).await;
    }
}

/// One `tools/call` on the warm session (started if needed), under the request timeout.
/// `tool` is the exact MCP name (`build_context`, …); `args` the camelCase arguments.
pub async fn call_tool(
    io: &Io,
    h: &McpHandle,
    tool: &str,
    args: &Value,
) -> Result<ToolOutput, McpError> {
    let session = ensure(io, h).await?;
    let (id, text, messages_then) = h.0.borrow_mut().begin_call(session, tool, args)?;
    let _forget = ForgetGuard { h, session, id };
    let ms = h.0.borrow().opts.request_timeout_ms;
    let t0 = h.now();
    let answer = timeout(io, ms, async {
        write(io, h, session, text).await?;
        wait_answer(io, h, session, id).await
    })
    .await;
    let result = match answer {
        Some(r) => r?,
        None => {
            h.observe_now(t0 + ms);
            let silent =
                h.0.borrow_mut()
                    .on_call_timeout(session, id, messages_then, ms);
            if silent {
                probe(io, h, session).await;
            }
            stop_pending(io, h).await;
            return Err(McpError::TimedOut(ms));
        }
    };
    decode_tool_result(&result)
}

/// Is a silent process alive? The SDK serves requests concurrently, so a process busy with a
/// slow tool call (the ONNX model loading on the first semantic search) still answers `ping`;
/// a hung one does not, and is replaced.
pub(super) async fn probe(io: &Io, h: &McpHandle, session: u64) {
    let Some((id, text)) = h.0.borrow_mut().begin_ping(session) else {
        return;
    };
    let _forget = ForgetGuard { h, session, id };
    let ms = h.0.borrow().opts.request_timeout_ms.min(PROBE_MS);
    let t0 = h.now();
    let answer = timeout(io, ms, async {
        write(io, h, session, text).await?;
        wait_answer(io, h, session, id).await
    })
    .await;
    match answer {
        Some(Ok(_)) => h.0.borrow_mut().logs.push(Log::debug(format!(
            "maenifold MCP session {session} answers pings; only a request was slow"
        ))),
        Some(Err(_)) => {} // ended meanwhile: already recorded
        None => {
            h.observe_now(t0 + ms);
            h.0.borrow_mut().hung(session, ms);
        }
    }
}

/// Start the session now (plugin start with session-start context on) and send the
/// `initialized` notification. Returns the status as JSON.
pub async fn warm_up(io: &Io, h: &McpHandle) -> Value {
    let r = if h.transport() == Transport::Cli {
        Err(McpError::Unavailable("transport is cli".into()))
    } else {
        ensure(io, h).await
    };
    if let Ok(session) = &r {
        let session = *session;
        let text = h.0.borrow_mut().take_outbox(session);
        if !text.is_empty() {
            let _ = write(io, h, session, text).await;
        }
    }
    json!({
        "ok": r.is_ok(),
        "error": r.err().map(|e| e.to_string()),
        "status": h.status(),
        "logs": h.take_logs(),
    })
}

/// Stop the session (dispose). The host also kills its children on dispose and exit.
pub async fn shutdown(io: &Io, h: &McpHandle) {
    if let Some(session) = h.dispose() {
        h.0.borrow_mut().to_stop.push(session);
    }
    stop_pending(io, h).await;
}

pub(super) fn mcp_args(concept: &str, q: ContextQuery) -> Value {
    json!({
        "conceptName": concept,
        "depth": q.depth,
        "maxEntities": q.max_entities,
        "includeContent": q.include_content,
    })
}

pub(super) async fn build_context_mcp(
    io: &Io,
    h: &McpHandle,
    concept: &str,
    q: ContextQuery,
) -> Result<BuildContext, McpError> {
    let out = call_tool(io, h, "build_context", &mcp_args(concept, q)).await?;
    let converted = if out.text.trim().is_empty() {
        match &out.structured {
            Some(v) => build_context_from_value(v),
            None => return Err(McpError::BadResult("empty build_context text".into())),
        }
    } else {
        build_context_from_text(&out.text)
    };
    converted.map_err(|e| McpError::BadResult(e.to_string()))
}

/// BuildContext for one normalized concept, as [`crate::knowledge::Source::build_context`] gives it: from the
/// cache, else the warm MCP session, else (transport `auto`, or `cli`) the CLI. `Ok` with an
/// empty value is "no knowledge"; only `Ok` answers are cached.
pub async fn build_context(
    io: &Io,
    h: &McpHandle,
    cli: Option<&dyn Direct>,
    concept: &str,
    q: ContextQuery,
) -> Result<BuildContext, String> {
    let key = h.0.borrow().cache_key(concept, q);
    let hit = {
        let mut hub = h.0.borrow_mut();
        let now = hub.now();
        hub.cache.get(&key, now)
    };
    if let Some(b) = hit {
        return Ok(b);
    }
    let r = match h.transport() {
        Transport::Cli => match cli {
            Some(c) => c.direct_build_context(io, concept, q).await,
            None => Err("no maenifold CLI".to_string()),
        },
        t => match build_context_mcp(io, h, concept, q).await {
            Ok(b) => Ok(b),
            Err(e) if t == Transport::Auto && !e.is_definitive() && cli.is_some() => {
                if !matches!(e, McpError::Unavailable(_)) {
                    h.0.borrow_mut().logs.push(Log::debug(format!(
                        "BuildContext {concept}: {e}; asking the CLI"
                    )));
                }
                cli.expect("checked")
                    .direct_build_context(io, concept, q)
                    .await
            }
            Err(e) => Err(format!("BuildContext {concept}: {e}")),
        },
    };
    if let Ok(b) = &r {
        let mut hub = h.0.borrow_mut();
        let now = hub.now();
        hub.cache.put(key, b.clone(), now);
    }
    r
}

/// Any other maenifold tool by its CLI name (`SearchMemories`, `RecentActivity`, …) with the
/// CLI payload; returns the markdown text, judged like the CLI's (an `ERROR:` text is an
/// error). Over MCP the text is the CLI's markdown; `--json` forms are CLI-only.
pub async fn tool_text(
    io: &Io,
    h: &McpHandle,
    cli: Option<&dyn Direct>,
    cli_tool: &str,
    payload: &Value,
    json_out: bool,
) -> Result<String, String> {
    let via_cli = |io: &Io| {
        let io = io.clone();
        let payload = payload.clone();
        let tool = cli_tool.to_string();
        async move {
            match cli {
                Some(c) => c.direct_call(&io, &tool, &payload, json_out).await,
                None => Err("no maenifold CLI".to_string()),
            }
        }
    };
    let transport = h.transport();
    let name = mcp_tool_name(cli_tool);
    let (Some(name), false) = (name, transport == Transport::Cli) else {
        return via_cli(io).await;
    };
    match call_tool(io, h, name, payload).await {
        Ok(out) => {
            let r = SpawnResult {
                success: true,
                stdout: out.text,
                exit_code: Some(0),
                ..Default::default()
            };
            maenifold::judge(&r)
                .map(str::to_string)
                .map_err(|e| format!("{cli_tool}: {e}"))
        }
        Err(e) if transport == Transport::Auto && !e.is_definitive() && cli.is_some() => {
            via_cli(io).await
        }
        Err(e) => Err(format!("{cli_tool}: {e}")),
    }
}
