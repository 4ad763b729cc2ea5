"""The front-end of :class:`pairlab.notebook.Stepper`: one anywidget ES module (no build step).

It draws what Python sends (the panes' PNG, the objective and metric curves, the status and the
explanation) and sends back what the user does: buttons as ``{"event": NAME}``, the scrubber as
``{"event": "seek", "position": K}``, and clicks on points as indices. Hit-testing happens here
(nearest point within 8 pixels, from the synced view coordinates and each pane's affine map to
image pixels), so a click sends ``{"event": "select", "point": I}`` and the second point
``{"event": "link", "i": I, "j": J}``; Python validates and edits the links.
"""

from __future__ import annotations

__all__ = ["ESM"]

ESM = r"""
const COLOURS = ["#d55e00", "#0072b2", "#009e73", "#e69f00", "#cc79a7", "#56b4e9"];
const SVG = "http://www.w3.org/2000/svg";

function chart(title, series, names, cursor) {
  const w = 300, h = 120, l = 46, b = 18;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("width", w); svg.setAttribute("height", h);
  svg.classList.add("pairlab-chart");
  const text = (x, y, s, anchor) => {
    const t = document.createElementNS(SVG, "text");
    t.setAttribute("x", x); t.setAttribute("y", y); t.setAttribute("font-size", "10");
    if (anchor) t.setAttribute("text-anchor", anchor);
    t.textContent = s; svg.appendChild(t);
  };
  text(l, 10, title);
  const all = series.flat().filter(v => v !== null && Number.isFinite(v));
  if (!all.length) { text(w / 2, h / 2, "no values", "middle"); return svg; }
  let lo = Math.min(...all), hi = Math.max(...all);
  if (hi === lo) { hi += 1e-9; lo -= 1e-9; }
  const n = Math.max(2, ...series.map(s => s.length));
  const X = i => l + (w - l - 6) * i / (n - 1), Y = v => h - b - (h - b - 16) * (v - lo) / (hi - lo);
  text(l - 3, Y(hi) + 3, hi.toPrecision(4), "end"); text(l - 3, Y(lo) + 3, lo.toPrecision(4), "end");
  text((l + w) / 2, h - 4, "iteration", "middle");
  series.forEach((s, k) => {
    const pts = s.map((v, i) => (v === null ? null : `${X(i)},${Y(v)}`)).filter(p => p);
    const pl = document.createElementNS(SVG, "polyline");
    pl.setAttribute("points", pts.join(" ")); pl.setAttribute("fill", "none");
    pl.setAttribute("stroke", COLOURS[k % COLOURS.length]); pl.setAttribute("stroke-width", "1.5");
    const tip = document.createElementNS(SVG, "title"); tip.textContent = names[k] || "";
    pl.appendChild(tip); svg.appendChild(pl);
  });
  const c = document.createElementNS(SVG, "line");
  c.setAttribute("x1", X(cursor)); c.setAttribute("x2", X(cursor));
  c.setAttribute("y1", 14); c.setAttribute("y2", h - b); c.setAttribute("stroke", "#888");
  c.setAttribute("stroke-dasharray", "3,2"); svg.appendChild(c);
  return svg;
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "pairlab-stepper";
  const bar = document.createElement("div");
  const send = (msg) => model.send(msg);
  const button = (label, event, tip) => {
    const b = document.createElement("button");
    b.textContent = label; b.title = tip; b.onclick = () => send({ event });
    bar.appendChild(b); return b;
  };
  button("|<", "reset", "back to iteration 0");
  button("<", "back", "one iteration back");
  button("½<", "half_back", "half an iteration back");
  button("½>", "half_step", "half an iteration forward (E then M)");
  button(">", "step", "one iteration forward");
  const play = document.createElement("button");
  play.textContent = "play";
  let timer = null;
  const stop = () => { if (timer) clearInterval(timer); timer = null; play.textContent = "play"; };
  play.onclick = () => {
    if (timer) { stop(); return; }
    timer = setInterval(() => (model.get("at_end") ? stop() : send({ event: "step" })), 500);
    play.textContent = "pause";
  };
  bar.appendChild(play);
  const undo = button("undo", "undo", "undo the last link edit");
  const kind = document.createElement("select");
  for (const k of ["must", "cannot"]) {
    const o = document.createElement("option"); o.value = k; o.textContent = k + "-link";
    kind.appendChild(o);
  }
  kind.onchange = () => { model.set("link_kind", kind.value); model.save_changes(); };
  bar.appendChild(kind);
  const scrub = document.createElement("div");
  const slider = document.createElement("input");
  slider.type = "range"; slider.min = 0; slider.step = 1; slider.className = "pairlab-scrubber";
  const where = document.createElement("span");
  slider.oninput = () => send({ event: "seek", position: Number(slider.value) });
  scrub.append(slider, where);
  const img = document.createElement("img");
  img.className = "pairlab-panes";
  img.style.cursor = "crosshair"; img.style.maxWidth = "100%";
  let first = null;
  img.onclick = (e) => {
    const r = img.getBoundingClientRect();
    const x = (e.clientX - r.left) * img.naturalWidth / r.width;
    const y = (e.clientY - r.top) * img.naturalHeight / r.height;
    const view = model.get("view");
    let best = -1, bestD = 64;  // 8 pixels, squared
    for (const [x0, y0, w, h, ax, bx, ay, by] of model.get("axes")) {
      if (x < x0 || x > x0 + w || y < y0 || y > y0 + h) continue;
      for (let i = 0; i < view.length / 2; i++) {
        const dx = ax * view[2 * i] + bx - x, dy = ay * view[2 * i + 1] + by - y;
        const d = dx * dx + dy * dy;
        if (d < bestD) { bestD = d; best = i; }
      }
    }
    if (best < 0) { first = null; return; }
    if (first !== null && first !== best) {
      send({ event: "link", i: first, j: best }); first = null; return;
    }
    first = first === best ? null : best;
    send({ event: "select", point: best });
  };
  const charts = document.createElement("div");
  charts.style.display = "flex"; charts.style.gap = "8px";
  const info = document.createElement("pre");
  const error = document.createElement("div");
  error.style.color = "#b00";
  const update = () => {
    img.src = "data:image/png;base64," + model.get("image");
    const positions = model.get("positions");
    slider.max = Math.max(0, positions.length - 1); slider.value = model.get("position");
    where.textContent = " " + (positions[model.get("position")] || "");
    kind.value = model.get("link_kind");
    undo.disabled = !model.get("can_undo");
    const c = model.get("curves");
    charts.innerHTML = "";
    if (c.objective) charts.appendChild(chart(c.objective.name, c.objective.series, c.panes, c.cursor));
    if (c.metric) charts.appendChild(chart(c.metric.name, c.metric.series, c.panes, c.cursor));
    info.textContent = model.get("status") + "\n" + model.get("explanation");
    error.textContent = model.get("error");
  };
  model.on("change", update);
  update();
  root.append(bar, scrub, img, charts, error, info);
  el.appendChild(root);
  return () => stop();
}
export default { render };
"""
