// The calculator's two charts (net saving against the horizon and against the
// output size), drawn from POST /v1/gate/curve's points as the API gives them.
// Plain browser JavaScript with no build step, inlined after shared.client.js;
// console.client.js calls `consoleCharts`.

const consoleCharts = (() => {
  "use strict";
  const { byId, svg: el, usd } = consoleKit;
  const plain = (/** @type {number} */ n) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });
  /** @param {number} v */
  const shortUsd = (v) => {
    const a = Math.abs(v);
    const s = a === 0 ? "0" : a >= 1 ? a.toFixed(2) : a >= 0.01 ? a.toFixed(3) : a.toPrecision(2);
    return (v < 0 ? "−$" : "$") + s;
  };
  /** @param {number} v */
  const shortNum = (v) =>
    Math.abs(v) >= 1e6 ? `${plain(v / 1e6)}M` : Math.abs(v) >= 1e3 ? `${plain(v / 1e3)}k` : plain(v);

  /** @param {SVGSVGElement} svg @param {string} message */
  function emptyChart(svg, message) {
    svg.replaceChildren(el("text", { x: 280, y: 150, "text-anchor": "middle", class: "empty" }, message));
  }

  /** @param {number} min @param {number} max @param {number} count */
  function niceTicks(min, max, count) {
    const span = max - min || Math.abs(max) || 1;
    const raw = span / count;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => span / s <= count) || 10 * mag;
    const ticks = [];
    for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step)
      ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
    return ticks;
  }

  /** @param {SVGSVGElement} svg @param {ChartSpec} spec */
  function drawChart(svg, spec) {
    const W = 560,
      H = 300,
      L = 72,
      R = 18,
      T = 16,
      B = 46;
    const xs = spec.points.map((p) => p.x);
    const ys = spec.points.map((p) => p.net_saving_usd).concat([0]);
    const xMin = Math.min(...xs),
      xMax = Math.max(...xs);
    let yMin = Math.min(...ys),
      yMax = Math.max(...ys);
    const pad = (yMax - yMin || Math.abs(yMax) || 1e-6) * 0.08;
    yMin -= pad;
    yMax += pad;
    const sx = (/** @type {number} */ x) => L + ((x - xMin) / (xMax - xMin || 1)) * (W - L - R);
    const sy = (/** @type {number} */ y) => T + ((yMax - y) / (yMax - yMin)) * (H - T - B);
    const nodes = [];

    if (spec.prefilter !== null && spec.prefilter > xMin) {
      const x1 = sx(Math.min(spec.prefilter, xMax));
      nodes.push(
        el("rect", { x: L, y: T, width: x1 - L, height: H - T - B, class: "prefilter", "data-testid": "prefilter" }),
      );
      nodes.push(el("text", { x: L + 6, y: T + 14, class: "prefilter-label" }, "pre-filter: never fires"));
    }
    for (const v of niceTicks(yMin, yMax, 5)) {
      nodes.push(el("line", { x1: L, x2: W - R, y1: sy(v), y2: sy(v), class: "grid" }));
      nodes.push(el("text", { x: L - 8, y: sy(v) + 4, "text-anchor": "end" }, shortUsd(v)));
    }
    for (const v of niceTicks(xMin, xMax, 6)) {
      nodes.push(el("line", { x1: sx(v), x2: sx(v), y1: H - B, y2: H - B + 5, class: "axis" }));
      nodes.push(el("text", { x: sx(v), y: H - B + 18, "text-anchor": "middle" }, spec.fmtX(v)));
    }
    nodes.push(el("line", { x1: L, x2: L, y1: T, y2: H - B, class: "axis" }));
    nodes.push(el("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis" }));
    nodes.push(el("line", { x1: L, x2: W - R, y1: sy(0), y2: sy(0), class: "zero", "data-testid": "zero-line" }));
    nodes.push(el("text", { x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle" }, spec.xLabel));
    nodes.push(
      el(
        "text",
        { x: 14, y: (T + H - B) / 2, "text-anchor": "middle", transform: `rotate(-90 14 ${(T + H - B) / 2})` },
        "net saving (USD)",
      ),
    );

    nodes.push(
      el("polyline", {
        class: "curve",
        points: spec.points.map((p) => `${sx(p.x).toFixed(1)},${sy(p.net_saving_usd).toFixed(1)}`).join(" "),
      }),
    );
    for (const p of spec.points) {
      const attrs = { cx: sx(p.x), cy: sy(p.net_saving_usd), r: 3, class: p.fire ? "pt" : "pt neg" };
      nodes.push(
        el("circle", {
          ...attrs,
          "data-x": p.x,
          "data-net": p.net_saving_usd,
          "data-fire": p.fire,
          "data-reason": p.reason_code,
        }),
      );
    }
    if (spec.breakEven !== null && spec.breakEven >= xMin && spec.breakEven <= xMax) {
      const bx = sx(spec.breakEven);
      const g = el("g", { "data-testid": "break-even", "data-x": spec.breakEven });
      g.append(
        el("line", { x1: bx, x2: bx, y1: T, y2: H - B, class: "be-line" }),
        el("circle", { cx: bx, cy: sy(0), r: 6, class: "be-dot" }),
      );
      const right = bx < (L + W - R) / 2;
      g.append(
        el(
          "text",
          { x: right ? bx + 8 : bx - 8, y: T + 32, "text-anchor": right ? "start" : "end", class: "be-label" },
          spec.beLabel,
        ),
      );
      g.append(el("title", {}, spec.beLabel));
      nodes.push(g);
    } else {
      svg.setAttribute("data-no-break-even", "true");
    }
    if (spec.here) {
      const { x, net_saving_usd: net } = spec.here;
      const here = el("circle", {
        cx: sx(x),
        cy: sy(net),
        r: 7,
        class: "here",
        "data-testid": "here",
        "data-x": x,
        "data-net": net,
      });
      here.append(el("title", {}, `this decision: ${spec.fmtX(x)} → ${usd(net)}`));
      nodes.push(here);
    }
    svg.replaceChildren(...nodes);
  }

  /**
   * Both charts: the API's curves, with the decision's own point and break-evens marked.
   *
   * @example
   * consoleCharts.drawCurves(gate.body, curve.body)
   * @param {GateDecision} decision
   * @param {GateCurve} curve
   */
  function drawCurves(decision, curve) {
    const inputs = decision.inputs;
    const hSvg = byId("chart-horizon", SVGSVGElement),
      tSvg = byId("chart-tokens", SVGSVGElement);
    hSvg.removeAttribute("data-no-break-even");
    tSvg.removeAttribute("data-no-break-even");
    byId("chart-model").textContent = curve.priced_as ? curve.priced_as.model : inputs.model_name;
    if (!curve.priced_as) {
      const unavailable = curve.output_tokens.some((p) => p.reason_code === "pricing_unavailable");
      emptyChart(
        hSvg,
        unavailable
          ? `Pricing for ${inputs.model_name} is unavailable: nothing to chart.`
          : `No pricing row for ${inputs.model_name}: nothing to chart.`,
      );
      emptyChart(
        tSvg,
        unavailable ? "The gate does not fire until it can read pricing." : "Add a row to see where the gate flips.",
      );
      return;
    }
    const at = (/** @type {CurvePoint[]} */ points, /** @type {number} */ x) => points.find((p) => p.x === x);
    const beH = decision.break_even_horizon;
    drawChart(hSvg, {
      points: curve.horizon,
      here: at(curve.horizon, inputs.horizon),
      breakEven: beH,
      beLabel: beH === null ? "" : `fires from H = ${beH}`,
      xLabel: `horizon H (turns), ${shortNum(inputs.output_tokens)} output tokens`,
      fmtX: plain,
      prefilter: null,
    });
    const beT = decision.break_even_output_tokens;
    drawChart(tSvg, {
      points: curve.output_tokens,
      here: at(curve.output_tokens, inputs.output_tokens),
      breakEven: beT,
      beLabel: beT === null ? "" : `fires from ${shortNum(beT)} tokens`,
      xLabel: `output tokens, H = ${inputs.horizon}`,
      fmtX: shortNum,
      prefilter: inputs.large_offload_threshold_tokens,
    });
  }

  /**
   * Both charts replaced by a message: the curves could not be had.
   *
   * @example
   * consoleCharts.curvesFailed("No curves — HTTP 503")
   * @param {string} message
   */
  function curvesFailed(message) {
    emptyChart(byId("chart-horizon", SVGSVGElement), message);
    emptyChart(byId("chart-tokens", SVGSVGElement), "");
  }

  return { drawCurves, curvesFailed, plain, shortNum };
})();
