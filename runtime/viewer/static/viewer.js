// The DWF run viewer page (`dwfc ui`). It draws the runs list (`/`) or one run (`/runs/ID`)
// from the viewer's JSON API and redraws when the server-sent event stream says the journal
// changed. Every string from a run (names, instructions, results, logs, reports, artifacts) is
// inserted as text (`textContent`, text nodes, attribute values): nothing here builds markup
// from data, and Markdown artifacts are drawn as DOM elements, never parsed as HTML.
"use strict";

const TOKEN = document.querySelector('meta[name="dwf-token"]').content;
const app = document.getElementById("app");
const detail = document.getElementById("detail");
const drafts = new Map();  // question id -> the answer being typed (kept across redraws)
const sections = new Map();  // section key -> the JSON it was last drawn from
let selected = null;  // {site, key} of the step whose detail is open
let current = null;  // the run page's data

// ------------------------------------------------------------------ DOM helpers

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function json(value) {
  return JSON.stringify(value, null, 2);
}

function duration(seconds) {
  if (seconds === null || seconds === undefined) return "–";
  if (seconds < 60) return seconds.toFixed(1) + " s";
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return minutes + " min " + String(Math.floor(seconds % 60)).padStart(2, "0") + " s";
  return Math.floor(minutes / 60) + " h " + String(minutes % 60).padStart(2, "0") + " min";
}

function when(text) {
  return text ? text.slice(0, 19).replace("T", " ") + " UTC" : "–";
}

function badge(outcome) {
  const status = String(outcome || "").split("(")[0];
  return el("span", {class: "badge status-" + status}, outcome);
}

function toast(message, bad) {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.className = "toast" + (bad ? " bad" : "");
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

// Replace the section `key` of `parent` only when its data changed, so a redraw keeps what
// the user is doing elsewhere (typing an answer, reading a long result).
function section(parent, key, data, draw) {
  const text = JSON.stringify(data);
  let box = parent.querySelector(`:scope > [data-section="${key}"]`);
  if (box && sections.get(key) === text) return;
  sections.set(key, text);
  const fresh = el("section", {"data-section": key});
  draw(fresh);
  if (box) box.replaceWith(fresh); else parent.append(fresh);
}

// ------------------------------------------------------------------ the API

async function api(path) {
  const response = await fetch(path, {credentials: "same-origin", cache: "no-store"});
  const body = await response.json().catch(() => ({error: response.statusText}));
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

async function act(path, body) {
  const response = await fetch(path, {
    method: "POST", credentials: "same-origin", cache: "no-store",
    headers: {"Content-Type": "application/json", "X-DWF-Token": TOKEN},
    body: JSON.stringify(body || {}),
  });
  const result = await response.json().catch(() => ({ok: false, error: response.statusText}));
  if (!response.ok || !result.ok) throw new Error(result.error || response.statusText);
  return result;
}

// ------------------------------------------------------------------ the runs page

async function drawRuns() {
  const data = await api("/api/runs");
  document.getElementById("workspace").textContent = data.workspace;
  document.title = "DWF runs";
  app.replaceChildren();
  if (!data.runs.length) {
    app.append(el("p", {class: "muted"}, "No runs in this workspace yet. Start one with `dwfc run`."));
    return;
  }
  const head = el("tr", {}, ["Name", "Status", "Started", "Duration", "Asks", "Tokens", "Run"].map(h => el("th", {}, h)));
  const rows = data.runs.map(run => el("tr", {class: "run-row", "data-run": run.id},
    el("td", {}, el("a", {class: "run-name", href: "/runs/" + encodeURIComponent(run.id)}, run.name || "(unnamed)")),
    el("td", {class: "run-status"}, badge(run.outcome)),
    el("td", {}, when(run.started)),
    el("td", {class: "num"}, duration(run.duration_s)),
    el("td", {class: "num run-asks"}, `${run.asks_done}/${run.asks}`),
    el("td", {class: "num"}, run.tokens.toLocaleString("en")),
    el("td", {class: "mono muted"}, run.id)));
  app.append(el("h1", {}, "Runs"), el("table", {class: "runs"}, el("thead", {}, head), el("tbody", {}, rows)));
}

// ------------------------------------------------------------------ one run

async function drawRun(runId) {
  const run = await api("/api/runs/" + encodeURIComponent(runId));
  current = run;
  document.title = (run.name || run.id) + " · DWF run";
  document.getElementById("workspace").textContent = run.id;
  if (!app.querySelector('[data-section="head"]')) { app.replaceChildren(); sections.clear(); }
  section(app, "head", [run.name, run.outcome, run.started, Math.round(run.duration_s || 0), run.tokens, run.asks,
                        run.description, run.caps.max_concurrency], box => drawHead(box, run));
  section(app, "actions", [run.status, run.resumable, run.can_resume, run.caps.max_concurrency],
          box => drawActions(box, run));
  section(app, "questions", run.pending_questions, box => drawQuestions(box, run));
  section(app, "outcome", [run.status, run.result, run.error], box => drawOutcome(box, run));
  section(app, "timeline", [run.timeline, Math.round(run.span_s)], box => drawTimeline(box, run));
  section(app, "actors", run.actors, box => drawActors(box, run));
  section(app, "artifacts", run.artifacts, box => drawArtifacts(box, run));
  section(app, "reports", run.reports, box => drawReports(box, run));
  section(app, "logs", run.logs, box => drawLogs(box, run));
  section(app, "graph", run.id, box => drawGraph(box, run));
  if (selected) await openStep(selected.site, selected.key, false);
}

function drawHead(box, run) {
  box.className = "run-head";
  box.append(el("p", {}, el("a", {href: "/"}, "← all runs")),
    el("h1", {}, el("span", {class: "run-title"}, run.name || "(unnamed run)"), " ", badge(run.outcome)));
  if (run.description) box.append(el("p", {class: "muted"}, run.description));
  box.append(el("dl", {class: "facts"},
    el("dt", {}, "Started"), el("dd", {}, when(run.started)),
    el("dt", {}, "Duration"), el("dd", {}, duration(run.duration_s)),
    el("dt", {}, "Asks"), el("dd", {}, String(run.asks)),
    el("dt", {}, "Output tokens"), el("dd", {}, run.tokens.toLocaleString("en")),
    el("dt", {}, "Concurrency"), el("dd", {}, String(run.caps.max_concurrency ?? "default"))));
}

function drawActions(box, run) {
  const actions = el("div", {class: "actions"});
  if (run.status === "running") {
    actions.append(el("button", {class: "danger", id: "cancel", onclick: () => perform(
      "/api/runs/" + encodeURIComponent(run.id) + "/cancel", {}, "Stopping the run…")}, "Cancel run"));
  }
  if (run.status === "stopped" && run.resumable) {
    actions.append(el("button", {id: "resume", disabled: !run.can_resume,
      title: run.can_resume ? "" : "this run records no agent: start dwfc ui with --agent PORT to resume it",
      onclick: () => perform("/api/runs/" + encodeURIComponent(run.id) + "/resume", {}, "Resuming…")}, "Resume"));
  }
  if (run.status === "running" || run.status === "stopped") {
    const input = el("input", {type: "number", min: "1", id: "concurrency", value: run.caps.max_concurrency ?? ""});
    actions.append(el("label", {}, "Max concurrency ", input), el("button", {id: "set-concurrency", onclick: () =>
      perform("/api/runs/" + encodeURIComponent(run.id) + "/concurrency",
              {max_concurrency: Number(input.value)}, "Changing the concurrency…")}, "Set"));
  }
  if (actions.childElementCount) box.append(actions);
}

async function perform(path, body, message) {
  toast(message);
  try {
    const result = await act(path, body);
    toast(result.status ? "The run is " + result.status + "." : "Done.");
    if (result.run_id && current && result.run_id !== current.id) location.assign("/runs/" + encodeURIComponent(result.run_id));
    else refresh();
  } catch (error) {
    toast(error.message, true);
  }
}

function drawQuestions(box, run) {
  if (!run.pending_questions.length) return;
  box.className = "questions";
  box.append(el("h2", {}, "Waiting for you"));
  for (const question of run.pending_questions) {
    const answer = el("textarea", {rows: "3", class: "answer", "data-question": question.id,
                                    placeholder: "Your answer", oninput: event => drafts.set(question.id, event.target.value)});
    answer.value = drafts.get(question.id) || "";
    const send = async () => {
      try {
        await act("/api/questions/" + encodeURIComponent(question.id) + "/answer", {answer: answer.value});
        drafts.delete(question.id);
        toast("Answered; the actor continues.");
        refresh();
      } catch (error) { toast(error.message, true); }
    };
    box.append(el("div", {class: "question", "data-question": question.id},
      el("p", {}, el("strong", {class: "actor"}, question.actor || "an actor"), " asks: ",
        el("span", {class: "question-text"}, question.question)),
      question.context ? el("pre", {class: "context"}, question.context) : null,
      answer, el("button", {class: "send-answer", onclick: send}, "Answer")));
  }
}

function drawOutcome(box, run) {
  if (run.status === "completed") {
    box.append(el("h2", {}, "Result"), el("pre", {class: "result"}, json(run.result)));
  } else if (run.error) {
    box.className = "failure";
    box.append(el("h2", {}, run.status === "stopped" ? "Stopped" : "Error"),
      el("p", {class: "error-message"}, run.error.message));
    if (run.error.traceback) box.append(el("pre", {class: "traceback"}, run.error.traceback));
  }
}

function drawTimeline(box, run) {
  box.append(el("h2", {}, "Timeline"));
  if (!run.timeline.length) { box.append(el("p", {class: "muted"}, "Nothing has run yet.")); return; }
  const span = Math.max(run.span_s || 0, 0.001);
  for (const phase of run.timeline) {
    const failed = phase.failed ? `, ${phase.failed} failed` : "";
    const rows = phase.steps.map(step => {
      const start = step.start_s ?? step.queued_s ?? 0;
      const end = step.end_s ?? run.duration_s ?? start;
      const bar = el("span", {class: "bar status-" + step.status + (step.cached || step.imported ? " cached" : "")});
      bar.style.left = (100 * start / span).toFixed(2) + "%";
      bar.style.width = Math.max(0.4, 100 * (end - start) / span).toFixed(2) + "%";
      const tokens = step.tokens ? ` · ${step.tokens.toLocaleString("en")} tokens` : "";
      const timing = step.end_s !== null ? duration(step.end_s - start) : step.status;
      return el("li", {class: "step", "data-site": step.site, "data-status": step.status, tabindex: "0",
                      onclick: () => openStep(step.site, step.key, true)},
        el("span", {class: "step-name"}, el("span", {class: "kind"}, step.kind), " ",
          step.actor ? el("span", {class: "actor"}, step.actor) : null, " ",
          el("span", {class: "label"}, step.label || step.key)),
        el("span", {class: "track"}, bar),
        el("span", {class: "step-time muted"}, timing + tokens));
    });
    box.append(el("div", {class: "phase", "data-phase": phase.title, "data-status": phase.status},
      el("h3", {}, el("span", {class: "phase-title"}, phase.title), " ", badge(phase.status),
        el("span", {class: "muted"}, ` ${phase.settled}/${phase.nodes} steps done${failed}`)),
      rows.length ? el("ol", {class: "steps"}, rows) : el("p", {class: "muted"}, "no steps yet")));
  }
}

function drawActors(box, run) {
  if (!run.actors.length) return;
  box.append(el("h2", {}, "Actors"));
  box.append(el("ul", {class: "actors"}, run.actors.map(actor => el("li", {class: "actor-card"},
    el("strong", {class: "actor-name"}, actor.name || "(anonymous)"),
    actor.model ? el("span", {class: "muted"}, " · " + actor.model) : null,
    el("span", {class: "muted"}, ` · ${actor.asks.length} ask${actor.asks.length === 1 ? "" : "s"}`),
    el("ul", {}, actor.asks.map(ask => el("li", {},
      el("a", {href: "#", onclick: event => { event.preventDefault(); openStep(ask.site, ask.key, true); }},
        ask.label || ask.key), " ", badge(ask.status))))))));
}

function drawArtifacts(box, run) {
  if (!run.artifacts.length) return;
  box.append(el("h2", {}, "Artifacts"));
  for (const artifact of run.artifacts) {
    const card = el("div", {class: "artifact", "data-artifact": artifact.id},
      el("h3", {}, artifact.title || artifact.id, el("span", {class: "muted"}, ` · ${artifact.kind}`
        + (artifact.version ? ` v${artifact.version}` : ""))));
    if (artifact.description) card.append(el("p", {class: "muted"}, artifact.description));
    if (artifact.kind === "markdown") {
      card.append(artifact.markdown === null ? el("p", {class: "muted"}, "(the stored file cannot be read)")
        : markdown(artifact.markdown));
    } else if (artifact.kind === "metrics") {
      const names = (artifact.spec && artifact.spec.metrics) || Object.keys(artifact.values);
      card.append(el("dl", {class: "metrics"}, names.map(name => [el("dt", {}, name),
        el("dd", {}, name in artifact.values ? String(artifact.values[name]) : "–")])));
    } else if (artifact.rows) {
      card.append(dataTable(artifact.spec && artifact.spec.columns, artifact.rows));
    } else if (artifact.version) {
      card.append(el("a", {href: `/api/runs/${encodeURIComponent(run.id)}/artifacts/${encodeURIComponent(artifact.id)}/${artifact.version}`},
        "download" + (artifact.source ? " " + artifact.source : "")), ` (${artifact.bytes} bytes)`);
    } else {
      card.append(el("pre", {}, json(artifact.spec)));
    }
    box.append(card);
  }
}

function dataTable(columns, rows) {
  const names = columns && columns.length ? columns
    : [...new Set(rows.flatMap(row => row && typeof row === "object" ? Object.keys(row) : ["value"]))];
  return el("table", {class: "data"}, el("thead", {}, el("tr", {}, names.map(name => el("th", {}, name)))),
    el("tbody", {}, rows.map(row => el("tr", {}, names.map(name => {
      const value = row && typeof row === "object" ? row[name] : row;
      return el("td", {}, value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value));
    })))));
}

function drawReports(box, run) {
  if (!run.reports.length) return;
  box.append(el("h2", {}, `Reports (${run.reports.length})`),
    el("ol", {class: "reports"}, run.reports.map(item => el("li", {}, el("pre", {class: "report"},
      typeof item === "string" ? item : json(item))))));
}

function drawLogs(box, run) {
  if (!run.logs.length) return;
  box.append(el("h2", {}, "Log"), el("ol", {class: "logs"}, run.logs.map(line => el("li", {},
    el("span", {class: "muted"}, line.at_s === null ? "" : `+${line.at_s.toFixed(1)} s `),
    line.phase ? el("span", {class: "muted"}, `[${line.phase}] `) : null, el("span", {class: "log-message"}, line.message)))));
}

async function drawGraph(box, run) {
  box.append(el("h2", {}, "Plan"));
  try {
    const graph = await api(`/api/runs/${encodeURIComponent(run.id)}/graph`);
    if (graph.svg) box.append(el("img", {class: "graph", alt: "the phase graph of the plan",
                                         src: `/api/runs/${encodeURIComponent(run.id)}/graph.svg`}));
    else if (graph.text) box.append(el("pre", {class: "graph-text"}, graph.text));
    else box.append(el("p", {class: "muted"}, graph.problem || "no graph"));
  } catch (error) {
    box.append(el("p", {class: "muted"}, error.message));
  }
}

// ------------------------------------------------------------------ one step

async function openStep(site, key, scroll) {
  selected = {site, key};
  const query = `site=${encodeURIComponent(site)}&key=${encodeURIComponent(key)}`;
  let step;
  try {
    step = await api(`/api/runs/${encodeURIComponent(current.id)}/node?${query}`);
  } catch (error) {
    detail.replaceChildren(el("p", {}, error.message));
    detail.hidden = false;
    return;
  }
  const usage = Object.entries(step.usage || {}).filter(([name]) => name !== "pure")
    .map(([name, value]) => [el("dt", {}, name.replaceAll("_", " ")), el("dd", {}, String(value))]);
  detail.replaceChildren();
  append(detail, [
    el("button", {class: "close", onclick: () => { selected = null; detail.hidden = true; }}, "×"),
    el("h2", {}, el("span", {class: "kind"}, step.kind), " ", el("span", {class: "step-label"}, step.label || step.key), " ",
      badge(step.imported ? "imported" : step.status)),
    el("p", {class: "muted mono"}, step.site + (step.key !== step.site ? " · " + step.key : "")),
    step.actor ? el("p", {}, "Actor: ", el("strong", {class: "actor"}, step.actor)) : null,
    step.instructions !== undefined && step.instructions !== null
      ? [el("h3", {}, "Instructions"), el("pre", {class: "instructions"}, step.instructions)] : null,
    Object.keys(step.input || {}).length ? [el("h3", {}, "Input"), el("pre", {}, json(step.input))] : null,
    step.schema ? [el("h3", {}, "Returns"), el("pre", {}, json(step.schema))] : null,
    el("h3", {}, "Result"), el("pre", {class: "node-result"}, step.status === "running" ? "(running)" : json(step.result)),
    step.error ? [el("h3", {}, "Error"), el("pre", {class: "node-error"}, json(step.error))] : null,
    usage.length ? [el("h3", {}, "Usage"), el("dl", {class: "facts"}, usage)] : null,
    el("h3", {}, `Attempts and progress (${step.attempts.length})`),
    step.attempts.length ? el("ol", {class: "attempts"}, step.attempts.map(a => el("li", {},
      el("span", {}, a.message || ""), a.violations ? el("pre", {}, json(a.violations)) : null)))
      : el("p", {class: "muted"}, "accepted on the first attempt"),
    step.questions.length ? [el("h3", {}, "Questions"), el("ul", {}, step.questions.map(q => el("li", {},
      el("span", {}, q.question), el("br"), el("span", {class: "muted"}, q.answer === null ? "(not answered)" : "→ " + q.answer))))] : null]);
  detail.hidden = false;
  if (scroll) detail.scrollTop = 0;
}

// ------------------------------------------------------------------ Markdown, drawn as DOM

function markdown(text) {
  const root = el("div", {class: "markdown"});
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^```/.test(line)) {
      const code = [];
      for (i++; i < lines.length && !/^```/.test(lines[i]); i++) code.push(lines[i]);
      root.append(el("pre", {}, el("code", {}, code.join("\n"))));
      i++;
    } else if (/^#{1,6}\s/.test(line)) {
      const level = line.match(/^#+/)[0].length;
      root.append(inline(el("h" + Math.min(6, level + 2)), line.replace(/^#+\s*/, "")));
      i++;
    } else if (/^\s*\|.*\|\s*$/.test(line) && i + 1 < lines.length && /^\s*\|?\s*:?-{2,}/.test(lines[i + 1])) {
      const cells = row => row.trim().replace(/^\||\|$/g, "").split("|").map(cell => cell.trim());
      const head = cells(line);
      const body = [];
      for (i += 2; i < lines.length && /^\s*\|.*\|\s*$/.test(lines[i]); i++) body.push(cells(lines[i]));
      root.append(el("table", {class: "data"}, el("thead", {}, el("tr", {}, head.map(c => inline(el("th"), c)))),
        el("tbody", {}, body.map(r => el("tr", {}, r.map(c => inline(el("td"), c)))))));
    } else if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const list = el(ordered ? "ol" : "ul");
      for (; i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i]); i++) {
        list.append(inline(el("li"), lines[i].replace(/^\s*([-*+]|\d+[.)])\s+/, "")));
      }
      root.append(list);
    } else if (!line.trim()) {
      i++;
    } else {
      const paragraph = [];
      for (; i < lines.length && lines[i].trim() && !/^(#{1,6}\s|```|\s*([-*+]|\d+[.)])\s+)/.test(lines[i]); i++) {
        paragraph.push(lines[i].trim());
      }
      root.append(inline(el("p"), paragraph.join(" ")));
    }
  }
  return root;
}

// `code`, **strong** and *emphasis*, as elements holding text; everything else stays text.
function inline(node, text) {
  const pattern = /(`[^`]+`|\*\*[^*]+\*\*|\*[^*\s][^*]*\*)/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    node.append(document.createTextNode(text.slice(last, match.index)));
    const token = match[0];
    if (token.startsWith("`")) node.append(el("code", {}, token.slice(1, -1)));
    else if (token.startsWith("**")) node.append(el("strong", {}, token.slice(2, -2)));
    else node.append(el("em", {}, token.slice(1, -1)));
    last = match.index + token.length;
  }
  node.append(document.createTextNode(text.slice(last)));
  return node;
}

// ------------------------------------------------------------------ live updates

const runMatch = location.pathname.match(/^\/runs\/([^/]+)$/);
const runId = runMatch ? decodeURIComponent(runMatch[1]) : null;
let drawing = null;
let again = false;

async function refresh() {
  if (drawing) { again = true; return drawing; }
  drawing = (async () => {
    try {
      await (runId ? drawRun(runId) : drawRuns());
    } catch (error) {
      app.replaceChildren(el("p", {class: "failure"}, error.message));
    }
  })();
  await drawing;
  drawing = null;
  if (again) { again = false; refresh(); }
}

function listen() {
  const live = document.getElementById("live");
  const stream = new EventSource("/api/stream" + (runId ? "?run=" + encodeURIComponent(runId) : ""));
  stream.addEventListener("change", () => { live.textContent = "live"; live.className = "live on"; refresh(); });
  stream.onerror = () => { live.textContent = "reconnecting…"; live.className = "live"; };
}

if (location.search.includes("token=")) history.replaceState(null, "", location.pathname);  // keep it out of history
refresh();
listen();
