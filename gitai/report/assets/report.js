"use strict";
// gitai report: renders the data embedded in #gitai-data (built by gitai/report/build.py).
// Rows: commits [sha12, epoch, intent, class(0 none,1 AST_REFACTOR,2 INTENT_EVOLUTION), backfilled, merge, subject,
// [intents its files serve]]; changes [commit, path, lines, class(3: deleted), contributor, the file's intent,
// inferred (1: backfill inferred the intent from scopes)]; tree [path, lines, [owners], exempt];
// events [epoch, event, intent, actor]; blame [{path, lines: [[intent, sha12, text, inferred]]}]; exempt [path].
// Intent -1: none. An inferred intent is shown `~INT-ID`, as blame-intent, log and map print it.
(function () {
  const D = JSON.parse(document.getElementById("gitai-data").textContent);
  const SVGNS = "http://www.w3.org/2000/svg";
  const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#86bcb6", "#d37295", "#8cd17d"];
  const AI = ["#6a3d9a", "#8e6cc4", "#b39ddb", "#4a148c"];
  // view "head": the code as it is (files at HEAD only); "history": deleted files too
  const state = { intents: new Set(), from: null, to: null, view: "head" };
  const EXEMPT = new Set(D.exempt);  // .orchestration/**: gitai's own files, left out of the code views
  const AT_HEAD = new Set(D.tree.map((t) => t[0]));
  function codePath(p) { return !EXEMPT.has(p) && (state.view === "history" || AT_HEAD.has(p)); }
  const $ = (id) => document.getElementById(id);

  function colour(i) { return i < 0 ? "var(--none)" : PALETTE[i % PALETTE.length]; }
  function label(i, inferred) { return i < 0 ? "(no intent)" : (inferred ? "~" : "") + D.intents[i].id; }
  function contribColour(c) {  // "unknown" (history does not say who) is not the grey of "(no intent)"
    if (c < 0) return "var(--unknown)";
    const name = D.contributors[c];
    if (name === "human") return "#2e9d5b";
    if (name === "mixed") return "#e08a1e";
    if (name.startsWith("ai")) return AI[c % AI.length];
    return "var(--unknown)";
  }
  function fitPath(path, width) {  // the full path, its start cut when the tile is too narrow
    const room = Math.floor(width / 6.2);
    return path.length <= room ? path : "\u2026" + path.slice(path.length - room + 1);
  }
  function el(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const kid of kids) node.append(kid);
    return node;
  }
  function svg(tag, attrs, ...kids) {
    const node = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const kid of kids) node.append(kid);
    return node;
  }
  function tip(node, text) { node.append(svg("title", {}, text)); return node; }
  function day(t) { return new Date(t * 1000).toISOString().slice(0, 10); }
  function min(xs) { return xs.reduce((a, b) => (b < a ? b : a), Infinity); }
  function max(xs) { return xs.reduce((a, b) => (b > a ? b : a), -Infinity); }
  function num(n) { return n.toLocaleString("en"); }
  function swatch(c) { return el("i", { class: "sw", style: "background:" + c }); }

  // --- filters --------------------------------------------------------------------------------
  function commitSelected(c) {
    if (state.from !== null && c[1] < state.from) return false;
    if (state.to !== null && c[1] >= state.to + 86400) return false;
    return state.intents.size === 0 || c[7].some((i) => state.intents.has(i));
  }
  function intentSelected(i) { return state.intents.size === 0 || state.intents.has(i); }
  function changeSelected(sel, ch) { return sel[ch[0]] && intentSelected(ch[5]); }

  function buildFilters() {
    const box = $("intent-filter");
    const used = new Set(D.commits.map((c) => c[2]));
    const ids = D.intents.map((_, i) => i).concat(used.has(-1) ? [-1] : []);
    for (const i of ids) {
      const chip = el("button", { class: "chip", type: "button", "data-intent": String(i), "aria-pressed": "false",
        title: i < 0 ? "commits attributed to no intent" : D.intents[i].name }, swatch(colour(i)), label(i));
      chip.addEventListener("click", () => {
        if (state.intents.has(i)) state.intents.delete(i); else state.intents.add(i);
        chip.setAttribute("aria-pressed", String(state.intents.has(i)));
        render();
      });
      box.append(chip);
    }
    const times = D.commits.map((c) => c[1]).filter((t) => t > 0);
    if (times.length) {
      for (const id of ["from", "to"]) { $(id).min = day(min(times)); $(id).max = day(max(times)); }
    }
    const parse = (v) => (v ? Date.parse(v + "T00:00:00Z") / 1000 : null);
    $("from").addEventListener("change", () => { state.from = parse($("from").value); render(); });
    $("to").addEventListener("change", () => { state.to = parse($("to").value); render(); });
    for (const [id, view] of [["view-head", "head"], ["view-history", "history"]]) {
      $(id).addEventListener("click", () => {
        state.view = view;
        $("view-head").setAttribute("aria-pressed", String(view === "head"));
        $("view-history").setAttribute("aria-pressed", String(view === "history"));
        render();
      });
    }
    $("reset").addEventListener("click", () => {
      state.intents.clear(); state.from = state.to = null; $("from").value = $("to").value = "";
      for (const chip of box.children) chip.setAttribute("aria-pressed", "false");
      render();
    });
  }

  // --- squarified treemap ---------------------------------------------------------------------
  function squarify(items, x, y, w, h) {
    // items: [{value, ...}] sorted by value desc; returns [{item, x, y, w, h}]
    const out = [];
    let rest = items.slice();
    const total = rest.reduce((s, it) => s + it.value, 0);
    if (!total || w <= 0 || h <= 0) return out;
    const scale = (w * h) / total;
    while (rest.length) {
      const side = Math.min(w, h);
      let row = [], best = Infinity;
      for (const it of rest) {
        const trial = row.concat([it]);
        const sum = trial.reduce((s, r) => s + r.value * scale, 0);
        const max = Math.max(...trial.map((r) => r.value * scale)), min = Math.min(...trial.map((r) => r.value * scale));
        const worst = Math.max((side * side * max) / (sum * sum), (sum * sum) / (side * side * min));
        if (worst > best) break;
        best = worst; row = trial;
      }
      const area = row.reduce((s, r) => s + r.value * scale, 0);
      const thick = area / side;
      let offset = 0;
      for (const r of row) {
        const len = (r.value * scale) / thick;
        if (w >= h) out.push({ item: r, x: x, y: y + offset, w: thick, h: len });
        else out.push({ item: r, x: x + offset, y: y, w: len, h: thick });
        offset += len;
      }
      if (w >= h) { x += thick; w -= thick; } else { y += thick; h -= thick; }
      rest = rest.slice(row.length);
    }
    return out;
  }

  function renderMap(sel) {
    const groups = new Map();
    for (const ch of D.changes) {
      if (!changeSelected(sel, ch) || ch[3] !== 2 || !codePath(ch[1])) continue;
      const intent = ch[5];
      if (!groups.has(intent)) groups.set(intent, new Map());
      const files = groups.get(intent);
      const f = files.get(ch[1]) || { value: 0, inferred: true };
      f.value += Math.max(1, ch[2]);
      f.inferred = f.inferred && ch[6] === 1;  // marked ~ when every change counted here was inferred
      files.set(ch[1], f);
    }
    const box = $("treemap");
    box.replaceChildren();
    const W = Math.max(320, box.clientWidth || 900), H = Math.round(Math.min(460, Math.max(260, W * 0.42)));
    const items = [...groups.entries()].map(([intent, files]) => ({
      intent, files, value: [...files.values()].reduce((a, b) => a + b.value, 0) })).sort((a, b) => b.value - a.value);
    $("map-count").textContent = String(items.reduce((s, g) => s + g.files.size, 0));
    if (!items.length) { box.append(el("p", { class: "empty" }, "No file changed in meaning in the selection.")); return; }
    const root = svg("svg", { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img",
      "aria-label": "files changed in meaning, per intent, sized by lines" });
    for (const cell of squarify(items, 0, 0, W, H)) {
      const g = svg("g", { class: "tm-intent", "data-intent": String(cell.item.intent) });
      const files = [...cell.item.files.entries()].map(([path, f]) => ({ path, value: f.value, inferred: f.inferred }))
        .sort((a, b) => b.value - a.value);
      for (const f of squarify(files, cell.x + 2, cell.y + 16, cell.w - 4, cell.h - 18)) {
        const path = D.paths[f.item.path], mark = label(cell.item.intent, f.item.inferred);
        const rect = svg("rect", { class: "tm-file", x: f.x, y: f.y, width: Math.max(0, f.w), height: Math.max(0, f.h),
          fill: colour(cell.item.intent), "fill-opacity": "0.75", "data-path": path, "data-inferred": String(f.item.inferred) });
        g.append(tip(rect, `${path}\n${mark}: ${num(f.item.value)} lines changed in meaning` +
          (f.item.inferred ? " (intent inferred by backfill)" : "")));
        if (f.w > 40 && f.h > 14) {
          const text = (f.item.inferred ? "~ " : "") + path;
          g.append(svg("text", { class: "lbl tm-path", x: f.x + 3, y: f.y + 12 }, fitPath(text, f.w - 4)));
        }
      }
      g.append(svg("rect", { class: "frame", x: cell.x + 0.75, y: cell.y + 0.75, width: Math.max(0, cell.w - 1.5), height: Math.max(0, cell.h - 1.5) }));
      if (cell.w > 40) g.append(svg("text", { class: "lbl", x: cell.x + 4, y: cell.y + 12, "font-weight": "bold" },
        `${label(cell.item.intent)} (${cell.item.files.size} files, ${num(cell.item.value)} lines)`));
      root.append(g);
    }
    box.append(root);
  }

  function renderIntents(sel) {
    const box = $("intent-cards");
    box.replaceChildren();
    const owned = D.intents.map(() => ({ files: 0, lines: 0 }));
    for (const t of D.tree) for (const o of t[2]) { owned[o].files++; owned[o].lines += t[1]; }
    const commits = new Map(), meaning = new Map();
    D.commits.forEach((c, n) => { if (sel[n]) for (const i of c[7]) commits.set(i, (commits.get(i) || 0) + 1); });
    for (const ch of D.changes) {
      if (!changeSelected(sel, ch) || ch[3] !== 2 || !codePath(ch[1])) continue;
      const i = ch[5];
      if (!meaning.has(i)) meaning.set(i, new Set());
      meaning.get(i).add(ch[1]);
    }
    D.intents.forEach((intent, i) => {
      if (!intentSelected(i)) return;
      const scope = el("div", {}, ...intent.scope.map((p) => el("code", {}, p + " ")));
      box.append(el("div", { class: "card intent-card", "data-intent": String(i) },
        el("h3", {}, swatch(colour(i)), intent.id + (intent.name ? ": " + intent.name : "")),
        el("div", { class: "note" }, intent.status),
        scope.childNodes.length ? scope : el("div", { class: "empty" }, "no owned scope"),
        el("div", {}, `owns ${num(owned[i].files)} files (${num(owned[i].lines)} lines) at HEAD; `,
          `${num(commits.get(i) || 0)} commits, ${num((meaning.get(i) || new Set()).size)} files changed in meaning`)));
    });
  }

  function pathList(rows, fmt) {
    const list = el("div", { class: "scroll" });
    const table = el("table");
    for (const r of rows.slice(0, 500)) table.append(fmt(r));
    list.append(table);
    if (rows.length > 500) list.append(el("p", { class: "note" }, `and ${num(rows.length - 500)} more`));
    return list;
  }

  function renderOwnership() {
    const box = $("ownership");
    box.replaceChildren();
    const nobody = D.tree.filter((t) => !t[3] && t[2].length === 0);
    const shared = D.tree.filter((t) => t[2].length > 1 && t[2].some(intentSelected));
    $("count-unowned").textContent = String(nobody.length);
    $("count-shared").textContent = String(shared.length);
    box.append(el("h3", {}, `Owned by no intent: ${num(nobody.length)} files`),
      nobody.length ? pathList(nobody, (t) => el("tr", { class: "unowned" }, el("td", {}, el("code", {}, D.paths[t[0]])), el("td", { class: "n" }, num(t[1]) + " lines")))
        : el("p", { class: "empty" }, "Every file at HEAD has an owner."),
      el("h3", {}, `Owned by several intents: ${num(shared.length)} files`),
      shared.length ? pathList(shared, (t) => el("tr", { class: "shared" }, el("td", {}, el("code", {}, D.paths[t[0]])),
        el("td", {}, ...t[2].map((o) => el("span", {}, swatch(colour(o)), label(o) + " ")))))
        : el("p", { class: "empty" }, "No file is owned by more than one intent."));
  }

  // --- provenance -----------------------------------------------------------------------------
  function stacked(parts, total) {
    const bar = el("div", { class: "bar" });
    for (const [c, n] of parts) if (n > 0) bar.append(el("span", { style: `width:${(100 * n) / total}%;background:${contribColour(c)}`, title: `${D.contributors[c]}: ${num(n)} lines` }));
    return bar;
  }

  function renderProvenance(sel) {
    const perIntent = new Map(), perFile = new Map(), used = new Set();
    for (const ch of D.changes) {
      if (!changeSelected(sel, ch) || ch[4] < 0 || ch[2] <= 0) continue;
      used.add(ch[4]);
      for (const [map, key] of codePath(ch[1]) ? [[perIntent, ch[5]], [perFile, ch[1]]] : [[perIntent, ch[5]]]) {
        if (!map.has(key)) map.set(key, new Map());
        const m = map.get(key);
        m.set(ch[4], (m.get(ch[4]) || 0) + ch[2]);
      }
    }
    const cols = [...used].sort((a, b) => D.contributors[a].localeCompare(D.contributors[b]));
    const legend = $("prov-legend");
    legend.replaceChildren(...cols.map((c) => el("span", {}, swatch(contribColour(c)), D.contributors[c])));
    const table = (map, name, limit) => {
      const rows = [...map.entries()].map(([k, m]) => [k, m, [...m.values()].reduce((a, b) => a + b, 0)]).sort((a, b) => b[2] - a[2]);
      const t = el("table", { class: "prov-table" }, el("tr", {}, el("th", {}, name), el("th", {}, "lines by contributor"),
        el("th", { class: "n" }, "lines"), ...cols.map((c) => el("th", { class: "n" }, D.contributors[c]))));
      for (const [k, m, total] of rows.slice(0, limit)) {
        t.append(el("tr", { class: "prov-row" }, el("td", {}, name === "intent" ? el("span", {}, swatch(colour(k)), label(k)) : el("code", {}, D.paths[k])),
          el("td", {}, stacked(cols.map((c) => [c, m.get(c) || 0]), total)), el("td", { class: "n" }, num(total)),
          ...cols.map((c) => el("td", { class: "n" }, m.get(c) ? num(m.get(c)) + ` (${Math.round((100 * m.get(c)) / total)}%)` : ""))));
      }
      return t;
    };
    $("prov-intents").replaceChildren(perIntent.size ? table(perIntent, "intent", 1000) : el("p", { class: "empty" }, "No lines in the selection."));
    $("prov-files").replaceChildren(perFile.size ? table(perFile, "file", 40) : el("p", { class: "empty" }, "No lines in the selection."));
    const attribution = new Map();
    D.commits.forEach((c, n) => {  // a commit whose files serve several intents counts for each of them
      if (!sel[n]) return;
      for (const i of c[7]) {
        if (!attribution.has(i)) attribution.set(i, [0, 0]);
        attribution.get(i)[c[4] ? 1 : 0]++;
      }
    });
    const t = el("table", {}, el("tr", {}, el("th", {}, "intent"), el("th", { class: "n" }, "declared (recorded at commit)"), el("th", { class: "n" }, "inferred (backfilled)")));
    for (const [i, [declared, inferred]] of [...attribution.entries()].sort((a, b) => a[0] - b[0]))
      t.append(el("tr", {}, el("td", {}, swatch(colour(i)), label(i)), el("td", { class: "n" }, num(declared)), el("td", { class: "n" }, num(inferred))));
    $("prov-attribution").replaceChildren(t);
  }

  // --- history --------------------------------------------------------------------------------
  function renderHistory(sel) {
    const chosen = D.commits.filter((_, n) => sel[n] && D.commits[n][1] > 0);
    const box = $("timeline");
    box.replaceChildren();
    const refactor = chosen.filter((c) => c[3] === 1).length, evolution = chosen.filter((c) => c[3] === 2).length;
    $("count-refactor").textContent = String(refactor);
    $("count-evolution").textContent = String(evolution);
    if (!chosen.length) { box.append(el("p", { class: "empty" }, "No commit in the selection.")); }
    else {
      const lo = min(chosen.map((c) => c[1])), hi = max(chosen.map((c) => c[1]));
      const weekly = hi - lo < 200 * 86400;
      const key = (t) => { const d = new Date(t * 1000); return weekly ? Math.floor(t / (7 * 86400)) : d.getUTCFullYear() * 12 + d.getUTCMonth(); };
      const keyStart = (k) => weekly ? day(k * 7 * 86400) : `${Math.floor(k / 12)}-${String((k % 12) + 1).padStart(2, "0")}`;
      const first = key(lo), last = key(hi), n = last - first + 1;
      const buckets = Array.from({ length: n }, () => ({ intents: new Map(), kinds: [0, 0, 0] }));
      for (const c of chosen) {
        const b = buckets[key(c[1]) - first];
        b.intents.set(c[2], (b.intents.get(c[2]) || 0) + 1);
        b.kinds[c[3]]++;
      }
      const W = Math.max(320, box.clientWidth || 900), H = 220, H2 = 70, pad = 28;
      const bw = (W - pad) / n, top = max(buckets.map((b) => [...b.intents.values()].reduce((x, y) => x + y, 0)));
      const top2 = Math.max(1, max(buckets.map((b) => b.kinds[1] + b.kinds[2])));
      const root = svg("svg", { width: W, height: H + H2 + 30, viewBox: `0 0 ${W} ${H + H2 + 30}`, role: "img", "aria-label": "commits per intent over time" });
      root.append(svg("text", { x: 0, y: 10 }, String(top)), svg("text", { x: 0, y: H }, "0"),
        svg("text", { x: 0, y: H + 24 }, "refactor / evolution"));
      buckets.forEach((b, k) => {
        let y = H;
        const x = pad + k * bw;
        for (const [i, count] of [...b.intents.entries()].sort((p, q) => p[0] - q[0])) {
          const h = ((H - 14) * count) / top;
          y -= h;
          root.append(tip(svg("rect", { class: "hist-bar", x, y, width: Math.max(1, bw - 1), height: h, fill: colour(i), "data-intent": String(i) }),
            `${keyStart(first + k)}: ${label(i)} ${count} commits`));
        }
        const ref = (H2 * b.kinds[1]) / top2, evo = (H2 * b.kinds[2]) / top2;
        root.append(tip(svg("rect", { x, y: H + 30 + H2 - ref - evo, width: Math.max(1, bw - 1), height: evo, fill: "#e15759" }), `${keyStart(first + k)}: ${b.kinds[2]} INTENT_EVOLUTION`),
          tip(svg("rect", { x, y: H + 30 + H2 - ref, width: Math.max(1, bw - 1), height: ref, fill: "#76b7b2" }), `${keyStart(first + k)}: ${b.kinds[1]} AST_REFACTOR`));
      });
      const every = Math.max(1, Math.ceil(n / Math.floor(W / 70)));
      for (let k = 0; k < n; k += every) root.append(svg("text", { x: pad + k * bw, y: H + 12 }, keyStart(first + k)));
      box.append(root, el("div", { class: "legend" }, el("span", {}, swatch("#e15759"), "INTENT_EVOLUTION"), el("span", {}, swatch("#76b7b2"), "AST_REFACTOR"),
        el("span", { class: "note" }, weekly ? "one bar per week" : "one bar per month")));
    }
    const events = D.events.filter((e) => (state.from === null || e[0] >= state.from) && (state.to === null || e[0] < state.to + 86400)
      && (state.intents.size === 0 || state.intents.has(e[2])));
    const kinds = new Map();
    for (const e of events) kinds.set(e[1], (kinds.get(e[1]) || 0) + 1);
    $("count-refusals").textContent = String(kinds.get("refusal") || 0);
    $("count-approvals").textContent = String(kinds.get("approve") || 0);  // gitai approve (a person)
    const shown = events.filter((e) => e[1] !== "select" && e[1] !== "clear").slice(-50).reverse();
    const list = shown.length ? el("table", { class: "events" }, el("tr", {}, el("th", {}, "when"), el("th", {}, "event"), el("th", {}, "intent"), el("th", {}, "actor"))) : el("div");
    for (const e of shown)
      list.append(el("tr", { class: "event-row" }, el("td", {}, new Date(e[0] * 1000).toISOString().replace("T", " ").slice(0, 16)), el("td", {}, e[1]), el("td", {}, label(e[2])), el("td", {}, e[3])));
    $("events").replaceChildren(el("p", {}, [...kinds.entries()].map(([k, v]) => `${k}: ${v}`).join(", ") || "No governance event in the selection."), list);
  }

  // --- per file -------------------------------------------------------------------------------
  function buildFileSelect() {
    const select = $("file-select");
    D.blame.forEach((b, n) => select.append(el("option", { value: String(n) }, D.paths[b.path])));
    select.addEventListener("change", renderBlame);
  }

  function renderBlame() {
    const box = $("blame"), legend = $("blame-legend");
    box.replaceChildren(); legend.replaceChildren();
    if (!D.blame.length) { box.append(el("p", { class: "empty" }, "No file's blame was precomputed.")); return; }
    const b = D.blame[Number($("file-select").value || 0)];
    const counts = new Map();
    const rows = b.lines.map(([i, sha, text, inferred], n) => {
      const shown = label(i, inferred === 1);
      counts.set(shown, [i, (counts.has(shown) ? counts.get(shown)[1] : 0) + 1]);
      return el("div", { class: intentSelected(i) ? "bl" : "bl dim", style: "border-left-color:" + colour(i), "data-intent": String(i),
        "data-inferred": String(inferred === 1) },
        el("u", {}, String(n + 1)), el("b", { title: shown + (inferred === 1 ? " (inferred by backfill)" : "") }, i < 0 ? "-" : shown.slice(0, 12)),
        (sha || "uncommitted").slice(0, 8) + "  " + text);
    });
    box.append(...rows);
    legend.append(...[...counts.entries()].sort((p, q) => q[1][1] - p[1][1]).map(([shown, [i, n]]) =>
      el("span", { class: "blame-count", "data-intent": String(i) }, swatch(colour(i)), `${shown} ${num(n)} lines`)));
  }

  // --- all views ------------------------------------------------------------------------------
  function render() {
    const sel = D.commits.map(commitSelected);
    let commits = 0, lines = 0;
    sel.forEach((s) => { if (s) commits++; });
    const files = new Set();
    for (const ch of D.changes) {
      if (changeSelected(sel, ch) && (state.view === "history" || AT_HEAD.has(ch[1]))) { lines += ch[2]; files.add(ch[1]); }
    }
    $("count-commits").textContent = String(commits);
    $("count-lines").textContent = String(lines);
    $("count-files").textContent = String(files.size);
    renderMap(sel); renderIntents(sel); renderOwnership(); renderProvenance(sel); renderHistory(sel); renderBlame();
  }

  $("repo-name").textContent = D.repo.name;
  $("meta").textContent = `HEAD ${(D.repo.head || "unborn").slice(0, 12)} · ${num(D.commits.length)} traced commits · generated ${D.repo.generated} by gitai`;
  buildFilters(); buildFileSelect(); render();
  let resizing = null;
  window.addEventListener("resize", () => { clearTimeout(resizing); resizing = setTimeout(render, 150); });
  document.body.setAttribute("data-ready", "true");
})();
