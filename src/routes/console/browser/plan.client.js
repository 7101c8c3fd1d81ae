// The console's clearing-plan view (src/routes/console/plan-view.tsx): reads
// a history from the text box (or builds one), asks POST /v1/plan, and draws
// the history now and after the plan as two bars to scale. Plain browser
// JavaScript, no build step, inlined with the page's CSP nonce after
// shared.client.js.

(() => {
  "use strict";
  const { find, byId, control, svg: el, usd, setStatus, gateHeaders, messageOf } = consoleKit;
  const form = find("plan-form");
  if (form === null) return;

  const tokens = (/** @type {number} */ n) => n.toLocaleString("en-US");

  /** @param {string} message @param {boolean} [bad] */
  function status(message, bad) {
    setStatus(byId("plan-status"), message, bad ? "error" : "");
  }

  /**
   * The history box as a request body: a list of segments, or a whole body whose fields the form fills in where blank.
   * @returns {Record<string, any>}
   */
  function readHistory() {
    const text = control("p-history").value.trim();
    const parsed = JSON.parse(text === "" ? "[]" : text);
    if (Array.isArray(parsed)) return { segments: parsed };
    if (parsed !== null && typeof parsed === "object") return parsed;
    throw new SyntaxError("the history must be a JSON list of segments or a request body");
  }

  function requestBody() {
    const body = readHistory();
    const number = (/** @type {string} */ id) =>
      control(id).value.trim() === "" ? undefined : Number(control(id).value);
    const fields = {
      model_name: control("p-model").value.trim() || undefined,
      horizon: number("p-horizon"),
      cache_hit_rate: number("p-cache-hit"),
      cache_ttl: control("p-ttl").value,
    };
    for (const [key, value] of Object.entries(fields)) if (value !== undefined && !(key in body)) body[key] = value;
    return body;
  }

  // ------------------------------------------------------------- the bars
  // The history now (top) and after the plan (bottom), on one scale: the
  // stubbed outputs shrink to their stubs, and everything from the earliest
  // stub on is written again.
  /** @param {Plan} plan @param {Segment[]} segments */
  function drawBars(plan, segments) {
    const svg = byId("plan-bar", SVGSVGElement);
    const W = 800,
      L = 8,
      R = 8,
      BAR = 34;
    const total = plan.inputs.history_tokens;
    const scale = (W - L - R) / Math.max(total, 1);
    const stubbed = new Set(plan.stub);
    const threshold = plan.inputs.large_offload_threshold_tokens;
    const nodes = [];
    // Labels sit at the right end, clear of the break line near the start of most histories.
    /** @param {number} y @param {BarPart[]} parts @param {string} label @param {string} testid */
    const bar = (y, parts, label, testid) => {
      nodes.push(el("text", { x: W - R, y: y - 6, "text-anchor": "end", class: "bar-label" }, label));
      const g = el("g", { "data-testid": testid });
      let x = L;
      for (const part of parts) {
        const width = Math.max(part.tokens * scale, part.tokens > 0 ? 1 : 0);
        const rect = el("rect", {
          x,
          y,
          width,
          height: BAR,
          class: `seg ${part.kind}`,
          "data-kind": part.kind,
          "data-tokens": part.tokens,
        });
        if (part.id !== undefined) rect.setAttribute("data-id", part.id);
        rect.append(el("title", {}, `${part.id ?? "fixed context"}: ${tokens(part.tokens)} tokens (${part.kind})`));
        g.append(rect);
        x += part.tokens * scale;
      }
      nodes.push(g);
    };
    const kindOf = (/** @type {Segment} */ segment) =>
      segment.id === undefined
        ? "fixed"
        : stubbed.has(segment.id)
          ? "stubbed"
          : segment.tokens < threshold
            ? "small"
            : "kept";
    bar(
      20,
      segments.map((s) => ({ id: s.id, tokens: s.tokens, kind: kindOf(s) })),
      `now: ${tokens(total)} tokens, cached`,
      "bar-now",
    );

    const after = segments.map((s) =>
      s.id !== undefined && stubbed.has(s.id)
        ? { id: s.id, tokens: s.stub_tokens ?? plan.inputs.stub_tokens, kind: "stub" }
        : { id: s.id, tokens: s.tokens, kind: kindOf(s) },
    );
    const afterTotal = after.reduce((sum, part) => sum + part.tokens, 0);
    const label =
      plan.stub.length > 0
        ? `after the plan: ${tokens(afterTotal)} tokens`
        : "after the plan: unchanged, the cache kept whole";
    bar(104, after, label, "bar-after");

    if (plan.stub.length > 0) {
      const bx = L + plan.rewrite_from_tokens * scale;
      nodes.push(
        el("rect", {
          x: bx,
          y: 102,
          width: Math.max(plan.rewritten_tokens * scale, 1),
          height: BAR + 4,
          class: "rewritten",
          "data-testid": "plan-rewritten",
          "data-tokens": plan.rewritten_tokens,
        }),
      );
      const g = el("g", { "data-testid": "plan-break", "data-tokens": plan.rewrite_from_tokens });
      g.append(el("line", { x1: bx, x2: bx, y1: 14, y2: 144, class: "break-line" }));
      const right = bx < W / 2;
      g.append(
        el(
          "text",
          { x: right ? bx + 6 : bx - 6, y: 76, "text-anchor": right ? "start" : "end", class: "break-label" },
          `cached prefix breaks at ${tokens(plan.rewrite_from_tokens)}: ${tokens(plan.rewritten_tokens)} written again`,
        ),
      );
      nodes.push(g);
    }
    svg.replaceChildren(...nodes);
  }

  /** @param {Plan} plan @param {Segment[]} segments */
  function render(plan, segments) {
    const decision = byId("plan-decision");
    decision.classList.remove("pending", "fire", "hold");
    if (plan.stub.length > 0) {
      decision.classList.add("fire");
      decision.textContent = `Stub ${plan.stub.join(", ")}: saves ${usd(plan.net_saving_usd)} (${plan.reason_code})`;
    } else {
      decision.classList.add("hold");
      decision.textContent = `Keep everything: no plan saves money (${plan.reason_code})`;
    }
    byId("plan-reason").textContent = plan.reason;
    const segmentOf = new Map(segments.filter((s) => s.id !== undefined).map((s) => [s.id, s]));
    const rows = plan.candidates.map((c) => {
      const tr = document.createElement("tr");
      tr.dataset.id = c.id;
      const alone = c.alone_net_saving_usd === null ? "below the pre-filter" : usd(c.alone_net_saving_usd);
      /** @type {[string, string?][]} */
      const cells = [
        [c.id],
        [tokens(segmentOf.get(c.id)?.tokens ?? 0), "num"],
        [c.stubbed ? "stub" : "keep"],
        [alone, "num"],
      ];
      for (const [text, cls] of cells) {
        const td = document.createElement("td");
        td.textContent = text;
        if (cls) td.className = cls;
        tr.append(td);
      }
      if (c.stubbed) tr.classList.add("stubbed");
      return tr;
    });
    byId("plan-candidates", HTMLTableElement).tBodies[0]?.replaceChildren(...rows);
    drawBars(plan, segments);
  }

  // Each ask supersedes the ones before it: an answer that lands after a newer ask (the on-load plan
  // still in flight when the user plans again) is dropped rather than drawn over the newer one.
  let latest = 0;

  /** @param {Event} [event] */
  async function ask(event) {
    event?.preventDefault();
    const mine = ++latest;
    let body;
    try {
      body = requestBody();
    } catch (error) {
      status(`The history is not valid JSON: ${messageOf(error)}`, true);
      return;
    }
    status("Planning…");
    const headers = gateHeaders({ "content-type": "application/json" });
    try {
      // A dry run, whatever the pasted body says: planning here never writes into the ledger.
      const res = await fetch("/v1/plan", {
        method: "POST",
        headers,
        body: JSON.stringify({ ...body, dry_run: true }),
      });
      const answer = await res.json();
      if (mine !== latest) return;
      if (!res.ok) {
        status(`${res.status}: ${answer.error?.message ?? "the plan failed"}`, true);
        return;
      }
      render(answer, Array.isArray(body.segments) ? body.segments : []);
      status(`Planned ${answer.candidates.length} candidates over ${tokens(answer.inputs.history_tokens)} tokens.`);
    } catch (error) {
      if (mine === latest) status(`The plan failed: ${messageOf(error)}`, true);
    }
  }

  // ----------------------------------------------------------- the builder
  byId("p-add").addEventListener("click", () => {
    let body;
    try {
      body = readHistory();
    } catch (error) {
      status(`The history is not valid JSON: ${messageOf(error)}`, true);
      return;
    }
    /** @type {Segment} */
    const segment = { tokens: Math.max(0, Math.trunc(Number(control("p-add-tokens").value) || 0)) };
    const id = control("p-add-id").value.trim();
    if (id !== "") {
      segment.id = id;
      if (control("p-add-p").value.trim() !== "") segment.recall_probability = Number(control("p-add-p").value);
    }
    const segments = Array.isArray(body.segments) ? body.segments : [];
    segments.push(segment);
    const list = `[\n  ${segments.map((/** @type {Segment} */ s) => JSON.stringify(s)).join(",\n  ")}\n]`;
    const history = control("p-history");
    history.value = Array.isArray(JSON.parse(history.value.trim() || "[]"))
      ? list
      : JSON.stringify({ ...body, segments }, null, 2);
    control("p-add-id").value = "";
    status(`Added ${id === "" ? "fixed context" : id}: ${segments.length} segments.`);
  });
  byId("p-clear").addEventListener("click", () => {
    control("p-history").value = "[]";
    status("History cleared.");
  });

  form.addEventListener("submit", ask);
  ask();
})();
