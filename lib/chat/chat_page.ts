/**
 * The chat page `syn chat serve` answers at `/`: one HTML file with its script inline, no
 * build step, no framework, nothing from a CDN. It streams replies, shows tool calls and
 * their results, has a stop button, and survives a reload: the reply in flight is
 * resumed by sequence, the transcript is kept in the browser's session storage. Opened by
 * `/?token=…`, it drops the token from the address bar: the server's HttpOnly cookie
 * carries it from then on, on reloads and on the page's own WebSocket. It joins only an
 * agent and a session of the allowed shape, and shows the session its socket really asked for.
 */
export const CHAT_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>syn chat</title>
<link rel="icon" href="data:,">
<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; display: flex; flex-direction: column; height: 100vh; background: #f6f6f4; color: #1d1d1b; }
  header { padding: .6rem 1rem; background: #1d1d1b; color: #f6f6f4; display: flex; gap: 1rem; align-items: baseline; }
  header small { opacity: .7; }
  #log { flex: 1; overflow-y: auto; padding: 1rem; }
  .msg { max-width: 46rem; margin: .4rem 0; padding: .5rem .75rem; border-radius: .5rem; white-space: pre-wrap; word-wrap: break-word; }
  .user { background: #dbe8ff; margin-left: auto; }
  .assistant { background: #fff; border: 1px solid #ddd; }
  .tool { font: 12px/1.4 ui-monospace, monospace; background: #efefe8; border-left: 3px solid #999; }
  .tool.fail { border-left-color: #c33; }
  .error { background: #fde2e1; }
  .meta { font-size: 12px; opacity: .6; }
  form { display: flex; gap: .5rem; padding: .75rem 1rem; background: #fff; border-top: 1px solid #ddd; }
  #input { flex: 1; font: inherit; padding: .5rem; }
  button { font: inherit; padding: .5rem 1rem; }
</style>
</head>
<body>
<header><strong>syn chat</strong><small id="status">connecting…</small><small id="session"></small></header>
<div id="log" aria-live="polite"></div>
<form id="form"><input id="input" autocomplete="off" placeholder="Message" aria-label="Message">
<button id="send" type="submit">Send</button><button id="stop" type="button" disabled>Stop</button></form>
<script type="module">
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const params = new URLSearchParams(location.search);
if (params.has("token")) {
  // The cookie set with this page keeps the token; the address bar and history need not.
  params.delete("token");
  history.replaceState(null, "", location.pathname + (params.size ? "?" + params : ""));
}
const asked = [params.get("agent"), params.get("session")];
const agent = NAME.test(asked[0] || "") ? asked[0] : "kgent";
const remembered = sessionStorage.getItem("syn.session");
const session = [asked[1], remembered].find((id) => NAME.test(id || "")) || ("web-" + crypto.randomUUID().slice(0, 12));
sessionStorage.setItem("syn.session", session);
const log = document.getElementById("log");
const status = document.getElementById("status");
const input = document.getElementById("input");
const stopButton = document.getElementById("stop");
const transcript = JSON.parse(sessionStorage.getItem("syn.transcript." + session) || "[]");
let pending = JSON.parse(sessionStorage.getItem("syn.pending." + session) || "null");
let socket, retry = 0;
const bubbles = new Map();

function save() {
  sessionStorage.setItem("syn.transcript." + session, JSON.stringify(transcript.slice(-200)));
  sessionStorage.setItem("syn.pending." + session, JSON.stringify(pending));
}
function add(kind, text, extra) {
  const div = document.createElement("div");
  div.className = "msg " + kind + (extra ? " " + extra : "");
  div.textContent = text;
  log.appendChild(div);
  log.scrollTop = log.scrollHeight;
  return div;
}
for (const item of transcript) add(item.kind, item.text, item.extra);

function bubbleFor(id) {
  let bubble = bubbles.get(id);
  if (!bubble) { bubble = add("assistant", ""); bubble.dataset.correlation = id; bubbles.set(id, bubble); }
  return bubble;
}
function short(value) { const text = JSON.stringify(value); return text.length > 300 ? text.slice(0, 300) + "…" : text; }

function onEvent(event) {
  const payload = event.payload || {};
  const id = payload.correlation_id;
  if (pending && id === pending.id) { pending.seq = Math.max(pending.seq, event.sequence); save(); }
  if (event.event_type === "chunk") {
    if (payload.tool_call) { const call = payload.tool_call; add("tool", "→ " + call.tool + " " + short(call.args)); }
    else if (payload.tool_result) { const r = payload.tool_result; add("tool", (r.ok ? "✓ " : "✗ ") + r.tool + " " + short(r.ok ? r.output : r.error), r.ok ? "" : "fail"); }
    else if (payload.content) bubbleFor(id).textContent += payload.content;
  } else if (event.event_type === "message") {
    const bubble = bubbleFor(id);
    bubble.textContent = payload.content;
    transcript.push({ kind: "assistant", text: payload.content });
  } else if (event.event_type === "error") {
    add("error", payload.code + ": " + payload.message + (payload.retry_after_seconds ? " (retry in " + payload.retry_after_seconds + " s)" : ""));
    // These refuse a message before its reply starts: no done follows.
    if (pending && id === pending.id && ["INVALID_MESSAGE", "RATE_LIMITED", "SESSION_EXPIRED"].includes(payload.code)) finish();
  } else if (event.event_type === "done") {
    if (payload.stopped) add("meta", "stopped");
    finish();
  }
  save();
}
function finish() { pending = null; stopButton.disabled = true; save(); }

if (asked[0] && asked[0] !== agent) add("error", "not an agent name: " + asked[0].slice(0, 80) + " (using " + agent + ")");
if (asked[1] && asked[1] !== session) add("error", "not a session id: " + asked[1].slice(0, 80));

function connect() {
  const url = new URL("/chat/" + agent, location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  url.search = new URLSearchParams({ session }).toString();
  socket = new WebSocket(url);
  socket.onopen = () => {
    retry = 0;
    status.textContent = "connected";
    // What the server reads from the socket's own address: the session really joined.
    document.getElementById("session").textContent = "session " + new URL(socket.url).searchParams.get("session");
    if (pending) {
      // A reply was in flight when the page went away: show it again from its start.
      bubbles.delete(pending.id);
      socket.send(JSON.stringify({ action: "resume", version: "1.0.0", data: { correlation_id: pending.id, after_sequence: 0 } }));
      stopButton.disabled = false;
    }
  };
  socket.onmessage = (message) => onEvent(JSON.parse(message.data));
  socket.onclose = () => {
    status.textContent = "reconnecting…";
    setTimeout(connect, Math.min(5000, 250 * 2 ** retry++));
  };
}

document.getElementById("form").onsubmit = (submit) => {
  submit.preventDefault();
  const content = input.value;
  if (!content.trim() || !socket || socket.readyState !== 1) return;
  const id = "web-" + crypto.randomUUID();
  pending = { id, seq: 0 };
  add("user", content);
  transcript.push({ kind: "user", text: content });
  save();
  socket.send(JSON.stringify({ action: "message", version: "1.0.0", data: { content, mode: "reflect", correlation_id: id } }));
  input.value = "";
  stopButton.disabled = false;
};
stopButton.onclick = () => {
  if (pending && socket && socket.readyState === 1) socket.send(JSON.stringify({ action: "stop", version: "1.0.0", data: { correlation_id: pending.id } }));
};
connect();
</script>
</body>
</html>
`;
