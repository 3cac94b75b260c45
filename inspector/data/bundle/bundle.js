// inspector bundle: draws the embedded answers. Text from the results goes into the page
// through textContent / text nodes only (never innerHTML), so it is shown, never run.
"use strict";

const DATA = JSON.parse(document.getElementById("bundle-data").textContent);
const PAGE_SIZE = 100;
const COUNTS = ["total", "evaluated", "error", "unavailable", "invalidated"];
const MARKS = { ok: "✓", differs: "≠", unusable: "!", unstored: "∅", derived: "(what-if plan, not compared)" };
// The state filter: a count (as the inspector's ledger counts it) or one reduction state.
const STATE_FILTERS = [
  ["", "every task", () => true],
  ["evaluated", "evaluated", (t) => t.state === "evaluated"],
  ["count:error", "count: error (has_error)", (t) => t.has_error],
  ["count:unavailable", "count: unavailable (state error or unavailable)",
    (t) => t.state === "error" || t.state === "unavailable"],
  ["invalidated", "invalidated", (t) => t.state === "invalidated"],
  ["state:error", "state: error", (t) => t.state === "error"],
  ["state:unavailable", "state: unavailable", (t) => t.state === "unavailable"],
];
const COLUMNS = [
  ["task", "task", (t) => t.task_id],
  ["category", "category", (t) => t.category],
  ["state", "state", (t) => t.state],
  ["error", "error", (t) => (t.has_error ? "yes" : "")],
  ["value", "value", (t) => t.value],
  ["attempts", "valid / requested", (t) => t.coverage.valid],
  ["reasons", "reasons", (t) => t.reasons.map((r) => r.text).join("; ")],
];

const state = { run: 0, series: null, filter: "", text: "", sort: null, reverse: false, page: 0, task: null };

function $(id) { return document.getElementById(id); }

// An element with plain attributes and children: strings become text nodes.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : text(child));
  return node;
}

function text(value) { return value === null || value === undefined ? "" : String(value); }

function num(value) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(4);
  return String(value);
}

function interval(low, high) {
  return low === null || low === undefined || high === null || high === undefined
    ? "" : `[${num(low)}, ${num(high)}]`;
}

function table(headers, rows, numeric = []) {
  const head = el("tr", {}, ...headers.map((h, i) => el("th", numeric.includes(i) ? { class: "num" } : {}, h)));
  const body = rows.map((row) => el("tr", {}, ...row.map((cell, i) =>
    el("td", numeric.includes(i) ? { class: "num" } : {}, cell))));
  return el("table", {}, el("thead", {}, head), el("tbody", {}, ...body));
}

function fill(id, ...children) { const node = $(id); node.replaceChildren(...children); return node; }

// -- the whole bundle -----------------------------------------------------------------------

function headline() {
  const runs = DATA.runs;
  if (!DATA.root) {
    const run = runs[0];
    const series = run.problem ? null : run.report.series.find((s) => s.series_id === run.headline);
    const stats = series ? run.stats.series.find((s) => s.series_id === series.series_id) : null;
    const mark = run.problem ? "!" : MARKS[run.check.state];
    $("headline").textContent = series
      ? `${run.plan.benchmark || "-"} · ${run.plan.model || "-"}: ${series.series_id} = ${num(series.value ?? series.reference_value)} ${stats ? interval(stats.ci_low, stats.ci_high) : ""} ${mark}`
      : `${run.run}: ${mark} ${run.problem || "no headline series"}`;
  } else {
    const cells = DATA.leaderboard || [];
    const models = new Set(cells.map((c) => c.model)), benchmarks = new Set(cells.map((c) => c.benchmark));
    const failing = runs.filter((r) => r.problem || r.check.state === "differs").length;
    $("headline").textContent = `${runs.length} runs under ${DATA.source}: ${models.size} models × ${benchmarks.size} benchmarks, ${failing} failing the check`;
  }
  $("subline").textContent = `bundle of ${DATA.source}; at most ${DATA.limit_mb} MiB`;
  fill("notes", ...DATA.notes.map((note) => el("li", {}, note)));
}

function leaderboard() {
  if (!DATA.leaderboard) return;
  $("leaderboard-section").hidden = false;
  const cells = DATA.leaderboard;
  const models = [...new Set(cells.map((c) => c.model))], benchmarks = [...new Set(cells.map((c) => c.benchmark))];
  const rows = models.map((model) => [model, ...benchmarks.map((benchmark) => {
    const cell = cells.find((c) => c.model === model && c.benchmark === benchmark);
    if (!cell) return "";
    const index = DATA.runs.findIndex((r) => r.run === cell.run);
    const label = `${cell.text} ${cell.interval ? interval(...cell.interval) : ""}`;
    return el("button", { class: "cell", type: "button", onclick: () => { chooseRun(index); $("run-choice").focus(); } }, label);
  })]);
  fill("leaderboard", table(["model", ...benchmarks], rows));
}

function gate() {
  if (!DATA.gate) return;
  $("gate-section").hidden = false;
  const rows = DATA.gate.runs.map((run) => {
    const failed = run.rules.filter((rule) => rule.status === "fail");
    return [run.run, run.status, run.problem || failed.map((rule) => rule.rule).join(", ") || "—",
      failed.flatMap((rule) => rule.failures).join("; ")];
  });
  fill("gate", el("p", {}, `policy: ${DATA.gate.policy} · exit code ${DATA.gate.exit_code}`),
    table(["run", "result", "failed rules", "failures"], rows));
}

function items() {
  if (!DATA.items) return;
  $("items-section").hidden = false;
  const rows = DATA.items.rows.filter((r) => r.flags && r.flags.length).map((r) =>
    [r.benchmark, r.task_id, r.runs, r.models, r.flags.map((f) => f.flag || f).join(", "),
      r.flags.map((f) => f.reason || "").filter(Boolean).join(" | ")]);
  const skipped = DATA.items.skipped;
  fill("items", el("p", {}, `${DATA.items.rows.length} task ids, ${rows.length} flagged`),
    skipped.length ? el("details", {}, el("summary", {}, `${skipped.length} runs left out`),
      el("ul", {}, ...skipped.map((s) => el("li", {}, `${s.run}: ${s.reason}`)))) : "",
    table(["benchmark", "task", "runs", "models", "flags", "why"], rows));
}

// -- one run --------------------------------------------------------------------------------

function chooseRun(index) {
  state.run = index;
  state.task = null;
  $("run-choice").value = String(index);
  const run = DATA.runs[index];
  $("run-problem").textContent = run.problem || "";
  $("run-body").hidden = Boolean(run.problem);
  const check = run.problem ? "!" : `${MARKS[run.check.state]} ${run.check.state}` +
    (run.check.count ? ` (${run.check.count} differences, e.g. ${run.check.differences[0].where})` : "");
  $("run-check").textContent = `check against the stored metrics.json: ${check}` +
    (run.warnings.length ? ` · ${run.warnings.length} warnings: ${run.warnings.join(" · ")}` : "");
  if (run.problem) return;
  seriesTable(run);
  fill("series-choice", ...run.report.series.map((s) => el("option", { value: s.series_id }, s.series_id)));
  chooseSeries(run.headline || run.report.series[0].series_id);
  plan(run);
}

function seriesTable(run) {
  const rows = run.report.series.map((s) => {
    const stats = run.stats.series.find((x) => x.series_id === s.series_id) || {};
    return [s.series_id + (s.role === "headline" ? " (headline)" : ""), s.aggregation,
      num(s.value ?? s.reference_value) + (s.value === null && s.reference_value !== null ? " (reference)" : ""),
      interval(stats.ci_low, stats.ci_high), ...COUNTS.map((c) => s.counts[c])];
  });
  fill("series", table(["series", "aggregation", "value", `${Math.round(run.stats.confidence * 100)}% interval`, ...COUNTS], rows, [2, 3, 4, 5, 6, 7, 8]));
}

function chooseSeries(seriesId) {
  const run = DATA.runs[state.run];
  state.series = seriesId;
  $("series-choice").value = seriesId;
  const series = run.report.series.find((s) => s.series_id === seriesId);
  const stats = run.stats.series.find((s) => s.series_id === seriesId) || { categories: {}, hierarchy: {} };
  const scope = (label, part, st) => [label, num(part.value ?? part.reference_value),
    interval(st && st.ci_low, st && st.ci_high), ...COUNTS.map((c) => part.counts[c])];
  const rows = [];
  for (const [path, part] of Object.entries(series.hierarchy || {})) {
    const depth = path.split("/").length - 1;
    rows.push(scope("\u00a0\u00a0".repeat(depth) + path.split("/").pop(), part, stats.hierarchy[path]));
  }
  for (const [key, part] of Object.entries(series.categories)) rows.push(scope(`category ${key}`, part, stats.categories[key]));
  fill("tree", table(["node / category", "value", "interval", ...COUNTS], rows, [1, 2, 3, 4, 5, 6, 7]));
  const bars = run.distribution[seriesId] || [];
  const most = Math.max(1, ...bars.map(([, count]) => count));
  fill("distribution", el("p", {}, `${bars.reduce((a, [, c]) => a + c, 0)} evaluated task values`),
    table(["value", "", "tasks"], bars.map(([label, count]) => {
      const bar = el("span", { class: "bar" });
      bar.style.width = `${(12 * count) / most}em`;
      return [label, bar, count];
    }), [2]));
  state.page = 0;
  tasks();
}

function plan(run) {
  const p = run.plan, sources = p.sources || {};
  const rows = [["benchmark", p.benchmark, sources.benchmark], ["model", p.model, ""],
    ["k", p.k, sources.k], ["strategy", p.strategy, sources.strategy],
    ["aggregation", p.aggregation, sources.aggregation], ["hierarchy", p.hierarchy ? "yes" : "none", sources.hierarchy],
    ["contract", `primary ${p.primary}; ` + Object.entries(p.metrics).map(([m, k]) => `${m} (${k})`).join(", "), sources.contract],
    ["evaluation failed", p.evaluation_failed ? "yes" : "no", ""]];
  for (const [key, source] of Object.entries(sources)) {
    if (!["benchmark", "k", "strategy", "aggregation", "hierarchy", "contract"].includes(key)) rows.push([key, "", source]);
  }
  if (p.derived) rows.push(["derived", p.derived, "what-if plan"]);
  fill("plan", table(["", "value", "from"], rows));
}

// -- tasks ------------------------------------------------------------------------------------

function shownTasks() {
  const run = DATA.runs[state.run];
  const keep = STATE_FILTERS.find(([key]) => key === state.filter)[2];
  const needle = state.text.toLowerCase();
  let rows = (run.tasks[state.series] || []).filter((t) => keep(t) && (!needle ||
    [t.task_id, t.category, ...t.reasons.map((r) => `${r.code} ${r.text}`)].join("\n").toLowerCase().includes(needle)));
  if (state.sort) {
    const get = COLUMNS.find(([key]) => key === state.sort)[2];
    const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
    const present = rows.filter((t) => get(t) !== null && get(t) !== undefined);
    const missing = rows.filter((t) => get(t) === null || get(t) === undefined);
    present.sort((a, b) => {
      const x = get(a), y = get(b);
      const order = typeof x === "number" && typeof y === "number" ? x - y : collator.compare(String(x), String(y));
      return state.reverse ? -order : order;
    });
    rows = present.concat(missing);  // a missing value is always last
  }
  return rows;
}

function tasks() {
  const rows = shownTasks();
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  state.page = Math.min(state.page, pages - 1);
  const page = rows.slice(state.page * PAGE_SIZE, (state.page + 1) * PAGE_SIZE);
  const total = (DATA.runs[state.run].tasks[state.series] || []).length;
  $("task-count").textContent = `${rows.length} of ${total} tasks`;
  $("page-info").textContent = `page ${state.page + 1} of ${pages}`;
  $("page-prev").disabled = state.page === 0;
  $("page-next").disabled = state.page >= pages - 1;
  const heads = COLUMNS.map(([key, label]) => {
    const attrs = { type: "button", onclick: () => sortBy(key) };
    if (state.sort === key) { attrs["aria-sort"] = state.reverse ? "descending" : "ascending"; attrs["data-arrow"] = state.reverse ? " ▼" : " ▲"; }
    return el("th", key === "value" ? { class: "num" } : {}, el("button", attrs, label));
  });
  $("tasks").tHead.replaceChildren(el("tr", {}, ...heads));
  $("tasks").tBodies[0].replaceChildren(...page.map((t) => el("tr", {
    tabindex: "0", "data-task": t.task_id,
    onclick: () => openTask(t.task_id),
    onkeydown: (event) => { if (event.key === "Enter") openTask(t.task_id); },
  }, ...COLUMNS.map(([key, , get]) => el("td", key === "value" ? { class: "num" } : {},
    key === "value" ? num(get(t)) : key === "attempts" ? `${t.coverage.valid} / ${t.coverage.requested}` : get(t))))));
}

function sortBy(key) {
  state.reverse = state.sort === key ? !state.reverse : false;
  state.sort = key;
  tasks();
}

function evidence(name, kept) {
  if (!kept) return el("p", { class: "muted" }, `${name}: nothing recorded`);
  const said = kept.left_out ? `${name}: ${kept.size} characters, the first ${kept.size - kept.left_out} shown, ${kept.left_out} left out`
    : `${name}: ${kept.size} characters`;
  return el("details", {}, el("summary", {}, said), el("pre", {}, kept.text));
}

function openTask(taskId) {
  const run = DATA.runs[state.run];
  const row = (run.tasks[state.series] || []).find((t) => t.task_id === taskId);
  state.task = taskId;
  $("task-detail").hidden = false;
  $("task-title").textContent = `${taskId} · ${row.state} · value ${num(row.value)} (${state.series})`;
  fill("task-reasons", row.reasons.length
    ? table(["reason", "why", "attempts", "issue"], row.reasons.map((r) => [r.code, r.text, r.attempts.join(", "),
      r.issue ? `${r.issue.severity} ${r.issue.phase} ${r.issue.code}: ${r.issue.message}` : ""]))
    : el("p", { class: "muted" }, "no reasons: the task was evaluated without issues"));
  const attempts = run.attempts[taskId] || [];
  fill("task-attempts", ...(attempts.length ? attempts.map((a) => el("div", { class: "attempt" },
    el("h4", {}, `attempt ${a.attempt} · ${a.status}` + (a.retries ? ` · ${a.retries} retries` : "")),
    el("p", {}, "metrics: " + (Object.entries(a.metrics).map(([m, v]) => `${m} = ${num(v)}`).join(", ") || "none")),
    a.issues.length ? table(["severity", "phase", "code", "message"], a.issues.map((i) => [i.severity, i.phase, i.code, i.message]))
      : el("p", { class: "muted" }, "no issues"),
    a.evidence_problem ? el("p", { class: "problem" }, a.evidence_problem) : "",
    evidence("verifier output", a.verifier), evidence("trajectory", a.trajectory)))
    : [el("p", { class: "muted" }, "no attempt recorded")]));
  $("task-detail").focus();
}

function closeTask() {
  const taskId = state.task;
  $("task-detail").hidden = true;
  state.task = null;
  const row = [...$("tasks").tBodies[0].rows].find((r) => r.dataset.task === taskId);
  if (row) row.focus();
}

// -- start ----------------------------------------------------------------------------------

function start() {
  document.title = `inspector bundle: ${DATA.source}`;
  headline();
  leaderboard();
  gate();
  items();
  fill("run-choice", ...DATA.runs.map((r, i) => el("option", { value: String(i) }, r.run + (r.problem ? " (!)" : ""))));
  fill("task-state", ...STATE_FILTERS.map(([key, label]) => el("option", { value: key }, label)));
  $("run-choice").addEventListener("change", (e) => chooseRun(Number(e.target.value)));
  $("series-choice").addEventListener("change", (e) => chooseSeries(e.target.value));
  $("task-state").addEventListener("change", (e) => { state.filter = e.target.value; state.page = 0; tasks(); });
  $("task-text").addEventListener("input", (e) => { state.text = e.target.value; state.page = 0; tasks(); });
  $("page-prev").addEventListener("click", () => { state.page -= 1; tasks(); });
  $("page-next").addEventListener("click", () => { state.page += 1; tasks(); });
  $("task-close").addEventListener("click", closeTask);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && state.task !== null) closeTask();
    else if (event.key === "/" && !["INPUT", "SELECT"].includes(document.activeElement.tagName)) {
      event.preventDefault();
      $("task-text").focus();
    }
  });
  chooseRun(0);
}

start();
