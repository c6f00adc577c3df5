/*
 * opscope diff page. Reads three JSON blocks written by src/export/diff/diff_html.c: the two runs'
 * timeline data (#opscope-data-base, #opscope-data-new; the viewer's format, docs/viewer.md)
 * and the comparison (#opscope-diff; the `opscope diff --json` document, docs/diff.md).
 * Draws both timelines on one time axis (time since each run's first record, same scale,
 * zoomed and panned together) with the viewer's level-of-detail rule (a run of records
 * narrower than a pixel is one pixel column found by binary search), and the diff table.
 *
 * Safety: strings from the inputs reach the page only through textContent and canvas
 * fillText; nothing here uses innerHTML, eval or URLs built from data.
 */
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const X = JSON.parse($('opscope-diff').textContent);
  const CATS = JSON.parse($('opscope-cats').textContent); // ggml op -> category

  // ---------------------------------------------------------------------------------------
  // Decoding (the viewer's data format)

  function b64bytes(s) {
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(s);
    const bin = atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  function varints(s, out) {
    const b = b64bytes(s);
    let p = 0;
    for (let i = 0; i < out.length; i++) {
      let x = b[p++];
      if (x < 128) { out[i] = x; continue; }
      let v = x & 127, mul = 128;
      do { x = b[p++]; v += (x & 127) * mul; mul *= 128; } while (x >= 128);
      out[i] = v;
    }
    return out;
  }
  function zigzag(a) {
    const out = new Int32Array(a.length);
    for (let i = 0; i < a.length; i++) { const v = a[i]; out[i] = (v % 2) ? -(v + 1) / 2 : v / 2; }
    return out;
  }

  function decode(id) {
    const el = $(id);
    const D = JSON.parse(el.textContent);
    el.textContent = '';
    const S = D.strings, nSig = D.sigs.n;
    const col = (k) => varints(D.sigs[k], new Float64Array(nSig));
    const str = (i) => (i ? S[i - 1] : null);
    const t = {
      D, str, nSig,
      sName: col('name'), sSub: col('sub_op'), sExtra: col('extra'), sTensor: col('tensor'),
      sShape: col('shape'), sCat: col('category'), sType: col('type'),
      sBackend: zigzag(col('backend')), sNode: zigzag(col('node')), sFused: zigzag(col('fused')),
      sBytes: col('bytes'),
    };
    const N = D.kept;
    t.rSig = varints(D.recs.sig, new Uint32Array(N));
    t.rStart = varints(D.recs.start, new Float64Array(N));
    t.rDur = varints(D.recs.dur, new Float64Array(N));
    t.lanes = D.lanes;
    t.rowLane = []; t.rowOff = []; t.rowCnt = []; t.rowOverlap = []; t.rowMaxDur = [];
    t.tEnd = 0;
    let off = 0;
    for (let l = 0; l < t.lanes.length; l++) {
      t.lanes[l].row0 = t.rowLane.length;
      for (let k = 0; k < t.lanes[l].rows.length; k++) {
        const c = t.lanes[l].rows[k];
        let prev = 0, maxDur = 0;
        for (let i = off; i < off + c; i++) {
          prev += t.rStart[i];
          t.rStart[i] = prev;
          const d = t.rDur[i];
          if (d > maxDur) maxDur = d;
          if (prev + d > t.tEnd) t.tEnd = prev + d;
        }
        t.rowLane.push(l); t.rowOff.push(off); t.rowCnt.push(c);
        t.rowOverlap.push(t.lanes[l].overlap[k]); t.rowMaxDur.push(maxDur);
        off += c;
      }
    }
    t.nRows = t.rowLane.length;
    // Graph computes and their phase runs (D.graphs: analyze/ggml/graphs.c's phase per compute, in
    // start order); a phase band is a run of consecutive computes of one phase.
    const G = D.graphs || null;
    t.G = G; t.nG = G ? G.id.length : 0; t.gMaxDur = 0; t.phaseRuns = [];
    t.gStart = new Float64Array(t.nG); t.gDur = new Float64Array(t.nG);
    for (let i = 0; i < t.nG; i++) {
      t.gStart[i] = G.start[i]; t.gDur[i] = G.dur[i];
      if (t.gDur[i] > t.gMaxDur) t.gMaxDur = t.gDur[i];
      const ph = G.phases[G.phase[i]], e = t.gStart[i] + t.gDur[i], r = t.phaseRuns[t.phaseRuns.length - 1];
      if (r && r.phase === ph) { r.end = Math.max(r.end, e); r.n++; r.last = i; }
      else t.phaseRuns.push({ phase: ph, start: t.gStart[i], end: e, n: 1, first: i, last: i });
    }
    t.runStart = Float64Array.from(t.phaseRuns, (r) => r.start);
    t.runMaxDur = t.phaseRuns.reduce((m, r) => Math.max(m, r.end - r.start), 0);
    const bk = new Map();
    for (const b of D.backends) bk.set(b.id, b);
    t.backendName = (id) => { const b = bk.get(id); return b && b.name ? b.name : 'backend ' + id; };
    t.isGgml = /^(ggml|opscope)/.test(D.profiler || 'ggml') || !D.profiler;
    t.splitWord = t.isGgml ? ' \u00b7 split ' : ' \u00b7 stream ';
    // per signature: the op label (colour) and the group label of `opscope diff`'s op key
    t.sigLabel = []; t.sigGroup = [];
    for (let s = 0; s < nSig; s++) {
      const sub = str(t.sSub[s]), ex = str(t.sExtra[s]);
      const lab = (str(t.sName[s]) || '?') + (sub ? '(' + sub + ')' : '');
      t.sigLabel.push(lab);
      t.sigGroup.push(lab + (ex ? (t.sType[s] === 1 ? ' (via ' + ex + ')' : ' [fused: ' + ex + ']') : ''));
    }
    return t;
  }
  const T = [decode('opscope-data-base'), decode('opscope-data-new')];

  // ---------------------------------------------------------------------------------------
  // Colours: one per op label, shared by both runs, by total time over both

  const opIndex = new Map(), opTotal = [];
  for (const t of T) {
    t.sigOp = new Int32Array(t.nSig);
    for (let s = 0; s < t.nSig; s++) {
      let o = opIndex.get(t.sigLabel[s]);
      if (o === undefined) { o = opTotal.length; opIndex.set(t.sigLabel[s], o); opTotal.push(0); }
      t.sigOp[s] = o;
    }
    for (let i = 0; i < t.rSig.length; i++) opTotal[t.sigOp[t.rSig[i]]] += t.rDur[i];
  }
  const nOp = opTotal.length;
  const opLabel = new Array(nOp);
  for (const [k, v] of opIndex) opLabel[v] = k;
  const opHue = new Float64Array(nOp);
  Array.from({ length: nOp }, (_, i) => i).sort((a, b) => opTotal[b] - opTotal[a])
    .forEach((o, r) => { opHue[o] = (r * 137.508 + 200) % 360; });
  let opColor = [], theme = {};
  function applyTheme(dark) {
    document.documentElement.classList.toggle('dark', dark);
    const cs = getComputedStyle(document.documentElement);
    for (const k of ['bg', 'fg', 'muted', 'panel', 'line', 'lane-a', 'lane-b', 'axis', 'accent', 'dim', 'view'])
      theme[k] = cs.getPropertyValue('--' + k).trim();
    opColor = Array.from({ length: nOp }, (_, o) => 'hsl(' + opHue[o].toFixed(1) + ',' + (dark ? '60%,58%)' : '62%,52%)'));
  }
  let dark = false;
  try { dark = localStorage.getItem('opscope-theme') === 'dark'; } catch (e) { /* file:// may refuse */ }
  if (!dark && window.matchMedia) dark = window.matchMedia('(prefers-color-scheme: dark)').matches;
  applyTheme(dark);

  // ---------------------------------------------------------------------------------------
  // Formatting

  function fmtT(ns, sign) {
    if (ns === null || ns === undefined || !isFinite(ns)) return '-';
    const a = Math.abs(ns), s = sign ? (ns < 0 ? '-' : '+') : (ns < 0 ? '-' : '');
    if (a < 1e3) return s + (a === Math.floor(a) ? a.toFixed(0) : a.toFixed(1)) + ' ns';
    if (a < 1e6) return s + (a / 1e3).toFixed(2) + ' \u00b5s';
    if (a < 1e9) return s + (a / 1e6).toFixed(3) + ' ms';
    return s + (a / 1e9).toFixed(3) + ' s';
  }
  const fmtN = (n) => Math.round(n).toLocaleString('en-US');

  // ---------------------------------------------------------------------------------------
  // Header, totals

  const unit = X.normalization.unit;
  $('source').textContent = X.base.path + '  \u2192  ' + X.new.path;
  $('basename').textContent = X.base.path + ' (' + fmtN(X.base.records) + ' records' +
    (T[0].D.stride > 1 ? ', every ' + T[0].D.stride + 'th drawn' : '') + ')';
  $('newname').textContent = X.new.path + ' (' + fmtN(X.new.records) + ' records' +
    (T[1].D.stride > 1 ? ', every ' + T[1].D.stride + 'th drawn' : '') + ')';
  $('setup').textContent = 'Aligned by ' + X.by + (X.merged_backends ? ' (over all backends)' : '') + '. ' +
    (unit === 'none' ? 'Totals compared as they are.' :
      'Compared per ' + unit + ' (BASE ' + X.normalization.base_units + ', NEW ' + X.normalization.new_units + '). ') +
    ' Noise: Welch\u2019s t-test on per-call durations, alpha ' + X.noise.alpha + '.';
  {
    const tb = $('totalsbody');
    for (const [k, lab] of [['wall', 'Wall span'], ['op', 'Op time'], ['copy', 'Copy time'], ['total', 'Total time']]) {
      const v = X.totals[k], tr = document.createElement('tr');
      for (const [txt, cls] of [[lab, ''], [fmtT(v.base_ns), ''], [fmtT(v.new_ns), ''],
        [fmtT(v.delta_ns, true), v.delta_ns > 0 ? 'up' : v.delta_ns < 0 ? 'down' : ''],
        [v.ratio === null ? '-' : v.ratio.toFixed(3) + 'x', '']]) {
        const td = document.createElement('td'); td.textContent = txt; if (cls) td.className = cls; tr.appendChild(td);
      }
      tb.appendChild(tr);
    }
    const vd = $('verdict');
    if (X.fail_on_regression_pct !== null) {
      vd.textContent = 'Regression check (' + X.fail_on_regression_pct + '%): ' + (X.failed ? 'FAILED' : 'passed') +
        (X.totals.total_regression ? ' \u2013 total time' : '') +
        (X.summary.regressions ? ' \u2013 ' + X.summary.regressions + ' group(s)' : '');
      if (X.failed) vd.className = 'failed';
    }
  }

  // ---------------------------------------------------------------------------------------
  // Timelines

  const LABEL_W = 180, AXIS_H = 22, ROW_H = 16, LANE_PAD = 6, MAX_H = 600;
  // Under the axis, when a run has graph computes: a row of phase bands and a row of compute
  // bands (the viewer's), fixed while the lanes scroll; the lanes start at t.top.
  const BAND_H = 16;
  const full1 = Math.max(T[0].tEnd, T[1].tEnd, 1);
  let v0 = 0, v1 = full1, dpr = 1, cssW = 800;
  let filter = '', selRow = -1;
  // Lanes: a ggml scheduler's splits take turns on their backend, so by default each backend
  // has one lane for its ops (another for its copies), the splits' rows stacked into sub-rows
  // only where they overlap in time, and the canvas is as tall as its lanes: every lane in
  // view. The Splits button gives each split its lane (the canvas then scrolls past MAX_H).
  // A trace's streams run at once: a lane each, always.
  let perSplit = false;
  function rowsOverlap(t, a, b) { // rows sorted by start: one merge pass
    let i = t.rowOff[a], j = t.rowOff[b];
    const ie = i + t.rowCnt[a], je = j + t.rowCnt[b];
    while (i < ie && j < je) {
      if (t.rStart[i] + t.rDur[i] <= t.rStart[j]) i++;
      else if (t.rStart[j] + t.rDur[j] <= t.rStart[i]) j++;
      else return true;
    }
    return false;
  }
  function layoutLanes(t) {
    t.top = AXIS_H + (t.nG ? 2 * BAND_H + 3 : 0);
    t.shown = [];
    for (let l = 0; l < t.lanes.length; l++) {
      const prev = t.shown[t.shown.length - 1];
      if (t.isGgml && !perSplit && prev && prev.backend === t.lanes[l].backend && prev.copy === t.lanes[l].copy) prev.members.push(l);
      else t.shown.push({ backend: t.lanes[l].backend, copy: t.lanes[l].copy, members: [l] });
    }
    t.rowY = new Float64Array(t.nRows);
    let y = t.top;
    for (const d of t.shown) {
      const subs = [];
      for (const l of d.members)
        for (let k = 0; k < t.lanes[l].rows.length; k++) {
          const r = t.lanes[l].row0 + k;
          let s = d.members.length === 1 ? k : 0;
          while (s < subs.length && subs[s].some((q) => rowsOverlap(t, q, r))) s++;
          while (subs.length <= s) subs.push([]);
          subs[s].push(r);
          t.rowY[r] = y + LANE_PAD / 2 + s * ROW_H;
        }
      d.y = y;
      d.h = Math.max(1, subs.length) * ROW_H + LANE_PAD;
      y += d.h;
    }
    t.contentH = y;
    t.scroll = 0;
  }
  for (const t of T) { layoutLanes(t); t.sigMatch = new Uint8Array(t.nSig).fill(1); }
  const canv = [$('tlbase'), $('tlnew')];
  T[0].cv = canv[0]; T[1].cv = canv[1];
  for (const t of T) t.ctx = t.cv.getContext('2d', { alpha: false });
  const laneLabel = (t, l) => t.backendName(t.lanes[l].backend) + (t.lanes[l].copy ? ' copies' : '') + t.splitWord + t.lanes[l].split;
  function shownLabel(t, d) {
    const sl = t.shown[d], m = sl.members;
    if (m.length === 1 && (perSplit || !t.isGgml)) return laneLabel(t, m[0]);
    return t.backendName(sl.backend) + (sl.copy ? ' copies' : '') + (m.length > 1 ? ' \u00b7 ' + m.length + ' splits' : '');
  }

  function resize() {
    dpr = window.devicePixelRatio || 1;
    cssW = Math.max(300, document.body.clientWidth);
    for (const t of T) {
      t.cssH = perSplit ? Math.min(t.contentH, MAX_H) : t.contentH;
      t.scroll = Math.max(0, Math.min(t.scroll, t.contentH - t.cssH));
      t.cv.style.height = t.cssH + 'px';
      t.cv.width = Math.round(cssW * dpr); t.cv.height = Math.round(t.cssH * dpr);
    }
  }
  const plotW = () => cssW - LABEL_W;
  function clampView() {
    let span = v1 - v0;
    if (span > full1 * 1.05) span = full1 * 1.05;
    if (span < 50) span = 50;
    if (v0 < -full1 * 0.025) v0 = -full1 * 0.025;
    v1 = v0 + span;
    if (v1 > full1 * 1.025) { v1 = full1 * 1.025; v0 = v1 - span; }
  }
  function lowerBound(a, lo, hi, x) {
    while (lo < hi) { const m = (lo + hi) >>> 1; if (a[m] < x) lo = m + 1; else hi = m; }
    return lo;
  }
  let active = false;
  function updateMatch() {
    const sel = selRow >= 0 ? rows[selRow] : null;
    active = !!filter || !!sel;
    for (const t of T)
      for (let s = 0; s < t.nSig; s++) {
        let m = !filter || t.sigLabel[s].toLowerCase().includes(filter);
        if (m && sel) m = recordInGroup(t, s, sel.g);
        t.sigMatch[s] = m ? 1 : 0;
      }
  }
  // The category of a signature: a trace's own, else a copy is memory and a ggml op goes by
  // the table (FLASH_ATTN_EXT's prefill/decode depends on its shape: either).
  function catOf(t, s) {
    const c = t.str(t.sCat[s]);
    if (c !== null) return c;
    if (t.sType[s] === 1) return 'memory';
    const n = t.str(t.sName[s]);
    if (n === 'FLASH_ATTN_EXT') return 'attention';
    return CATS[n] || 'other';
  }
  // A record belongs to a group when it agrees on the parts of the key the page can see
  // (op, backend, category); layer, phase, shape and CPU op are not in the timeline data.
  function recordInGroup(t, s, g) {
    const k = g.key;
    if (k.op !== undefined && t.sigGroup[s] !== k.op) return false;
    if (k.backend !== undefined && t.backendName(t.sBackend[s]) !== k.backend) return false;
    if (k.category !== undefined && catOf(t, s) !== k.category &&
        !(catOf(t, s) === 'attention' && k.category.startsWith('attention_'))) return false;
    if (k.op === undefined && k.category === undefined) return false;
    return true;
  }

  // Phase and compute bands, as the viewer draws them (viewer.js, drawBands).
  const PHASE_HUE = { prefill: 28, decode: 212 };
  function phaseColor(ph, light) {
    const h = PHASE_HUE[ph];
    if (h === undefined) return dark ? (light ? '#666' : '#555') : (light ? '#ddd' : '#c8c8c8');
    return 'hsl(' + h + ',' + (dark ? '45%,' + (light ? '40%)' : '33%)') : '70%,' + (light ? '84%)' : '76%)'));
  }
  const phaseLabel = (r) => r.phase + ' \u00b7 ' + r.n + (r.n === 1 ? ' compute' : ' computes');
  const graphLabel = (t, i) => 'graph ' + t.G.id[i] + ' \u00b7 batch ' + t.G.batch[i];
  function spanX(s, e) {
    const sc = plotW() / (v1 - v0), x0 = (s - v0) * sc, x1 = (e - v0) * sc;
    return [x0, Math.max(x1 - x0, 1)];
  }
  function bandText(ctx, text, x, w, y) {
    const a = Math.max(x, 0), room = Math.min(x + w, plotW()) - a - 6;
    if (room < 14) return;
    let s = text;
    if (ctx.measureText(s).width > room) {
      const n = Math.floor(room / (ctx.measureText(s).width / s.length)) - 1;
      if (n < 2) return;
      s = s.slice(0, n) + '\u2026';
    }
    ctx.fillText(s, LABEL_W + a + 3, y);
  }
  function drawBands(t) {
    const ctx = t.ctx, W = plotW(), y0 = AXIS_H + 1, y1 = AXIS_H + 2 + BAND_H;
    ctx.save();
    ctx.beginPath(); ctx.rect(LABEL_W, AXIS_H, W, t.top - AXIS_H); ctx.clip();
    ctx.fillStyle = theme.panel; ctx.fillRect(LABEL_W, AXIS_H, W, t.top - AXIS_H);
    ctx.font = '10px system-ui, sans-serif';
    eachRun(t, (r, x, w) => {
      ctx.fillStyle = phaseColor(r.phase, false);
      ctx.fillRect(LABEL_W + x, y0, w >= 3 ? w - 1 : w, BAND_H - 1);
      ctx.fillStyle = theme.fg; bandText(ctx, phaseLabel(r), x, w, y0 + BAND_H / 2);
    });
    let lastPx = -Infinity;
    for (let i = lowerBound(t.gStart, 0, t.nG, v0 - t.gMaxDur); i < t.nG && t.gStart[i] <= v1; i++) {
      const e = t.gStart[i] + t.gDur[i];
      if (e < v0) continue;
      const [x, w] = spanX(t.gStart[i], e);
      if (w < 1.5 && Math.floor(x) === lastPx) continue;
      lastPx = Math.floor(x);
      ctx.fillStyle = phaseColor(t.G.phases[t.G.phase[i]], i % 2 === 1);
      ctx.fillRect(LABEL_W + x, y1, w >= 3 ? w - 1 : w, BAND_H - 1);
      if (w >= 40) { ctx.fillStyle = theme.fg; bandText(ctx, graphLabel(t, i), x, w, y1 + BAND_H / 2); }
    }
    ctx.restore();
    ctx.font = '11px system-ui, sans-serif';
  }
  // T's phase runs in view, in start order, at most one per pixel column: FN(run, x, w, k).
  function eachRun(t, fn) {
    let lastPx = -Infinity;
    for (let k = lowerBound(t.runStart, 0, t.phaseRuns.length, v0 - t.runMaxDur); k < t.phaseRuns.length && t.runStart[k] <= v1; k++) {
      const r = t.phaseRuns[k];
      if (r.end < v0) continue;
      const [x, w] = spanX(r.start, r.end);
      if (w < 1.5 && Math.floor(x) === lastPx) continue;
      lastPx = Math.floor(x);
      fn(r, x, w, k);
    }
  }
  function drawPhaseTint(t) {
    const ctx = t.ctx, H = t.cssH, lines = [];
    ctx.globalAlpha = dark ? 0.12 : 0.22;
    eachRun(t, (r, x, w, k) => {
      if (k > 0 && (!lines.length || x - lines[lines.length - 1] >= 8)) lines.push(x); // not denser than 8 px
      if (PHASE_HUE[r.phase] === undefined || w < 2) return; // a tint narrower than 2 px tells nothing
      ctx.fillStyle = phaseColor(r.phase, true);
      ctx.fillRect(LABEL_W + x, t.top, w, H - t.top);
    });
    ctx.globalAlpha = 0.7;
    ctx.strokeStyle = theme.muted; ctx.lineWidth = 1; ctx.setLineDash([3, 3]);
    ctx.beginPath(); // one dashed path for all the lines
    for (const x of lines) { ctx.moveTo(LABEL_W + Math.round(x) + 0.5, t.top); ctx.lineTo(LABEL_W + Math.round(x) + 0.5, H); }
    ctx.stroke(); ctx.setLineDash([]);
    ctx.globalAlpha = 1;
  }

  function drawOne(t) {
    const ctx = t.ctx, W = plotW(), scale = W / (v1 - v0), H = t.cssH;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = theme.bg; ctx.fillRect(0, 0, cssW, H);
    ctx.font = '11px system-ui, sans-serif'; ctx.textBaseline = 'middle';
    for (let d = 0; d < t.shown.length; d++) {
      const y = t.shown[d].y - t.scroll;
      if (y + t.shown[d].h < t.top || y > H) continue;
      ctx.fillStyle = d % 2 ? theme['lane-b'] : theme['lane-a'];
      ctx.fillRect(0, y, cssW, t.shown[d].h);
    }
    ctx.save();
    ctx.beginPath(); ctx.rect(LABEL_W, t.top, W, H - t.top); ctx.clip();
    drawPhaseTint(t);
    let lastColor = null;
    for (let r = 0; r < t.nRows; r++) {
      const y = t.rowY[r] - t.scroll + 1;
      if (y + ROW_H < t.top || y > H) continue;
      const off = t.rowOff[r], end = off + t.rowCnt[r];
      let i;
      if (t.rowOverlap[r]) i = lowerBound(t.rStart, off, end, v0 - t.rowMaxDur[r]);
      else { i = lowerBound(t.rStart, off, end, v0) - 1; if (i < off) i = off; }
      while (i < end) {
        const s0 = t.rStart[i];
        if (s0 > v1) break;
        const e0 = s0 + t.rDur[i];
        if (e0 < v0) { i++; continue; }
        const x0 = (s0 - v0) * scale, x1 = (e0 - v0) * scale;
        let j, sg;
        if (x1 - x0 >= 1) { sg = t.rSig[i]; j = i + 1; }
        else {
          const tNext = v0 + (Math.floor(x0) + 1) / scale;
          sg = t.rSig[i];
          if (active) {
            let hit = -1;
            for (j = i; j < end && t.rStart[j] < tNext; j++) if (hit < 0 && t.sigMatch[t.rSig[j]]) hit = j;
            if (hit >= 0) sg = t.rSig[hit];
          } else j = lowerBound(t.rStart, i + 1, end, tNext);
          if (j - 1 > i && t.rStart[j - 1] + t.rDur[j - 1] > tNext) j = j - 1;
          if (j <= i) j = i + 1;
        }
        const c = !active || t.sigMatch[sg] ? opColor[t.sigOp[sg]] : theme.dim;
        if (c !== lastColor) { ctx.fillStyle = c; lastColor = c; }
        const a = Math.max(x0, -2), b = x1 - x0 >= 1 ? Math.min(x1, W + 2) : Math.floor(x0) + 1;
        ctx.fillRect(LABEL_W + a, y, Math.max(1, (b - a >= 3 ? b - a - 1 : b - a)), ROW_H - 2);
        i = j;
      }
    }
    ctx.restore();
    if (t.nG) drawBands(t);
    ctx.fillStyle = theme.panel; ctx.fillRect(0, AXIS_H, LABEL_W, H - AXIS_H);
    if (t.nG) {
      ctx.fillStyle = theme.fg;
      ctx.fillText('phases', 6, AXIS_H + 1 + BAND_H / 2);
      ctx.fillText('graph computes (' + fmtN(t.nG) + ')', 6, AXIS_H + 2 + BAND_H * 1.5);
      ctx.fillStyle = theme.line; ctx.fillRect(0, t.top - 1, cssW, 1);
    }
    for (let d = 0; d < t.shown.length; d++) {
      const y = t.shown[d].y - t.scroll, h = t.shown[d].h;
      if (y + h < t.top || y > H) continue;
      ctx.save(); ctx.beginPath(); ctx.rect(0, Math.max(y, t.top), LABEL_W - 4, h); ctx.clip();
      ctx.fillStyle = theme.fg; ctx.fillText(shownLabel(t, d), 6, y + Math.min(h, ROW_H + LANE_PAD) / 2);
      ctx.restore();
      ctx.fillStyle = theme.line; ctx.fillRect(0, y + h - 1, cssW, 1);
    }
    ctx.fillStyle = theme.panel; ctx.fillRect(0, 0, cssW, AXIS_H);
    const raw = (v1 - v0) * 90 / Math.max(W, 1), p = Math.pow(10, Math.floor(Math.log10(raw)));
    let step = 10 * p;
    for (const m of [1, 2, 5, 10]) if (m * p >= raw) { step = m * p; break; }
    ctx.fillStyle = theme.axis;
    for (let x0 = Math.ceil(v0 / step) * step; x0 <= v1; x0 += step) {
      const x = LABEL_W + (x0 - v0) * scale;
      ctx.fillRect(x, AXIS_H - 6, 1, 6);
      ctx.fillText(fmtT(x0), x + 3, AXIS_H / 2);
    }
    ctx.fillStyle = theme.panel; ctx.fillRect(0, 0, LABEL_W, AXIS_H);
    ctx.fillStyle = theme.muted; ctx.fillText('time since first record', 6, AXIS_H / 2);
  }
  let drawCount = 0;
  function draw() {
    clampView();
    drawOne(T[0]); drawOne(T[1]);
    $('view').textContent = 'View ' + fmtT(v0) + ' \u2013 ' + fmtT(v1) + '  (span ' + fmtT(v1 - v0) + ')';
    if (!drawCount++ && performance.mark) performance.mark('opscope-first-draw');
  }
  let pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; draw(); });
  }
  function zoomAt(f, cx) {
    const W = plotW(), a = Math.min(Math.max((cx - LABEL_W) / W, 0), 1);
    const tt = v0 + a * (v1 - v0), span = (v1 - v0) * f;
    v0 = tt - a * span; v1 = v0 + span; clampView(); schedule();
  }
  function pan(frac) { const d = (v1 - v0) * frac; v0 += d; v1 += d; clampView(); schedule(); }

  // ---------------------------------------------------------------------------------------
  // Tooltip and interaction

  const tip = $('tip');
  function pick(t, cx, cy) {
    if (cx < LABEL_W || cy < t.top) return -1;
    const y = cy + t.scroll;
    const scale = plotW() / (v1 - v0), x = v0 + (cx - LABEL_W) / scale, tol = 3 / scale;
    let best = -1, bestD = Infinity;
    for (let r = 0; r < t.nRows; r++) { // collapsed splits: several rows share one y
      if (!(y >= t.rowY[r] && y < t.rowY[r] + ROW_H)) continue;
      const off = t.rowOff[r], end = off + t.rowCnt[r];
      const hi = lowerBound(t.rStart, off, end, x + tol);
      const lo = t.rowOverlap[r] ? lowerBound(t.rStart, off, end, x - tol - t.rowMaxDur[r]) : Math.max(off, hi - 2);
      for (let j = hi - 1; j >= lo; j--) {
        const s = t.rStart[j], e = s + t.rDur[j], d = x < s ? s - x : x > e ? x - e : 0;
        if (d <= tol && d < bestD) { best = j; bestD = d; }
      }
    }
    return best;
  }
  // the band under canvas css (CX, CY) of run T: {phase: run index} or {graph: index}, or null
  function bandAt(t, cx, cy) {
    if (!t.nG || cx < LABEL_W || cy < AXIS_H || cy >= t.top) return null;
    const sc = plotW() / (v1 - v0), x = v0 + (cx - LABEL_W) / sc, tol = 2 / sc;
    if (cy < AXIS_H + 1 + BAND_H) {
      for (let k = 0; k < t.phaseRuns.length; k++) if (x >= t.phaseRuns[k].start - tol && x <= t.phaseRuns[k].end + tol) return { phase: k };
      return null;
    }
    let best = -1;
    for (let i = lowerBound(t.gStart, 0, t.nG, x - tol - t.gMaxDur); i < t.nG && t.gStart[i] <= x + tol; i++)
      if (t.gStart[i] + t.gDur[i] >= x - tol && (best < 0 || t.gDur[i] < t.gDur[best])) best = i;
    return best >= 0 ? { graph: best } : null;
  }
  function showBandTip(t, b, mx, my, which) {
    tip.replaceChildren();
    const h = document.createElement('div'); h.className = 'tname'; tip.appendChild(h);
    tipLine('Run', which);
    if (b.phase !== undefined) {
      const r = t.phaseRuns[b.phase];
      h.textContent = r.phase;
      tipLine('Computes', fmtN(r.n) + '  (graph ' + t.G.id[r.first] + (r.n > 1 ? ' \u2013 ' + t.G.id[r.last] : '') + ')');
      tipLine('Span', fmtT(r.end - r.start) + '  (' + fmtT(r.start) + ' \u2013 ' + fmtT(r.end) + ')');
    } else {
      const i = b.graph;
      h.textContent = 'graph ' + t.G.id[i];
      tipLine('Phase', t.G.phases[t.G.phase[i]]);
      tipLine('Batch', String(t.G.batch[i]));
      tipLine('Span', fmtT(t.gDur[i]) + '  (' + fmtT(t.gStart[i]) + ' \u2013 ' + fmtT(t.gStart[i] + t.gDur[i]) + ')');
    }
    placeTip(mx, my);
  }
  function tipLine(k, v) {
    const d = document.createElement('div'), ks = document.createElement('span');
    ks.className = 'k'; ks.textContent = k + ': ';
    d.appendChild(ks); d.appendChild(document.createTextNode(v)); tip.appendChild(d);
  }
  function showTip(t, i, mx, my, which) {
    const s = t.rSig[i];
    tip.replaceChildren();
    const h = document.createElement('div'); h.className = 'tname'; h.textContent = t.sigGroup[s]; tip.appendChild(h);
    tipLine('Run', which);
    tipLine('Duration', fmtT(t.rDur[i]));
    tipLine('Start', fmtT(t.rStart[i]) + ' after the run\u2019s first record');
    let r = 0;
    for (let k = 0; k < t.nRows; k++) if (t.rowOff[k] <= i) r = k;
    tipLine('Lane', laneLabel(t, t.rowLane[r]));
    if (t.str(t.sShape[s])) tipLine('Shape', t.str(t.sShape[s]));
    if (t.str(t.sTensor[s])) tipLine('Tensor', t.str(t.sTensor[s]));
    if (t.str(t.sCat[s])) tipLine('Category', t.str(t.sCat[s]));
    placeTip(mx, my);
  }
  function placeTip(mx, my) {
    tip.hidden = false;
    let x = mx + 14, y = my + 14;
    if (x + tip.offsetWidth > window.innerWidth - 4) x = Math.max(4, mx - tip.offsetWidth - 14);
    if (y + tip.offsetHeight > window.innerHeight - 4) y = Math.max(4, my - tip.offsetHeight - 14);
    tip.style.left = x + 'px'; tip.style.top = y + 'px';
  }
  let drag = null;
  T.forEach((t, idx) => {
    const cv = t.cv;
    cv.addEventListener('wheel', (e) => {
      e.preventDefault();
      const unitPx = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan(e.deltaX * unitPx / plotW());
      else if (e.shiftKey) {
        t.scroll = Math.max(0, Math.min(t.contentH - t.cssH, t.scroll + e.deltaY * unitPx)); schedule();
      } else zoomAt(Math.exp(e.deltaY * unitPx * 0.002), e.clientX - cv.getBoundingClientRect().left);
    }, { passive: false });
    cv.addEventListener('mousedown', (e) => {
      if (e.button !== 0) return;
      drag = { x: e.clientX, v0, v1 };
      cv.classList.add('dragging');
    });
    cv.addEventListener('mousemove', (e) => {
      const rc = cv.getBoundingClientRect();
      if (drag) return;
      const b = bandAt(t, e.clientX - rc.left, e.clientY - rc.top);
      if (b) { showBandTip(t, b, e.clientX, e.clientY, idx ? 'NEW' : 'BASE'); return; }
      const i = pick(t, e.clientX - rc.left, e.clientY - rc.top);
      if (i >= 0) showTip(t, i, e.clientX, e.clientY, idx ? 'NEW' : 'BASE'); else tip.hidden = true;
    });
    cv.addEventListener('mouseleave', () => { tip.hidden = true; });
  });
  window.addEventListener('mousemove', (e) => {
    if (!drag) return;
    const dt = (e.clientX - drag.x) * (drag.v1 - drag.v0) / plotW();
    v0 = drag.v0 - dt; v1 = drag.v1 - dt; clampView(); schedule();
  });
  window.addEventListener('mouseup', () => { drag = null; for (const c of canv) c.classList.remove('dragging'); });
  window.addEventListener('keydown', (e) => {
    if (e.target && e.target.tagName === 'INPUT') return;
    const k = e.key.toLowerCase();
    if (k === 'w') zoomAt(0.8, LABEL_W + plotW() / 2);
    else if (k === 's') zoomAt(1.25, LABEL_W + plotW() / 2);
    else if (k === 'a' || e.key === 'ArrowLeft') pan(-0.1);
    else if (k === 'd' || e.key === 'ArrowRight') pan(0.1);
    else if (k === '0') { v0 = 0; v1 = full1; schedule(); }
    else if (e.key === 'Escape') { select(-1); }
  });
  for (const b of document.querySelectorAll('#zooms button'))
    b.addEventListener('click', () => {
      const span = Number(b.dataset.span);
      if (!span) { v0 = 0; v1 = full1; } else { const c = (v0 + v1) / 2; v0 = c - span / 2; v1 = c + span / 2; }
      clampView(); schedule();
    });
  $('theme').addEventListener('click', () => {
    dark = !dark; applyTheme(dark);
    try { localStorage.setItem('opscope-theme', dark ? 'dark' : 'light'); } catch (e) { /* ignore */ }
    schedule();
  });

  // ---------------------------------------------------------------------------------------
  // The diff table

  const rows = X.groups.map((g, i) => ({ g, i }));
  const val = {
    delta: (g) => g.delta_ns, pct: (g) => (g.delta_pct === null ? -Infinity : g.delta_pct),
    ratio: (g) => (g.ratio === null ? -Infinity : g.ratio), bn: (g) => g.base_count, bt: (g) => g.base_norm_ns,
    bc: (g) => (g.base_count ? g.base_total_ns / g.base_count : 0), nn: (g) => g.new_count,
    nt: (g) => g.new_norm_ns, nc: (g) => (g.new_count ? g.new_total_ns / g.new_count : 0),
    p: (g) => (g.p_value === null ? -1 : g.p_value), name: (g) => g.name,
  };
  let sortKey = 'delta', sortDesc = true;
  const body = $('groupsbody');
  function cell(tr, text, cls) { const td = document.createElement('td'); td.textContent = text; if (cls) td.className = cls; tr.appendChild(td); return td; }
  function renderTable() {
    const f = filter;
    const vis = rows.filter((r) => !f || r.g.name.toLowerCase().includes(f));
    const key = val[sortKey];
    vis.sort((a, b) => {
      if (sortKey === 'delta') return Math.abs(b.g.delta_ns) - Math.abs(a.g.delta_ns);
      const x = key(a.g), y = key(b.g);
      const c = typeof x === 'string' ? x.localeCompare(y) : x - y;
      return sortDesc ? -c : c;
    });
    body.replaceChildren();
    for (const r of vis) {
      const g = r.g, tr = document.createElement('tr');
      tr.dataset.i = r.i;
      if (!g.significant) tr.classList.add('noise');
      if (!g.shown) tr.classList.add('hidden-share');
      if (selRow === r.i) tr.classList.add('sel');
      cell(tr, fmtT(g.delta_ns, true) + (g.significant ? '' : ' ~'), g.delta_ns > 0 ? 'up' : g.delta_ns < 0 ? 'down' : '');
      cell(tr, g.status === 'only_new' ? 'new' : g.status === 'only_base' ? 'gone' : g.delta_pct === null ? '-' : (g.delta_pct >= 0 ? '+' : '') + g.delta_pct.toFixed(1) + '%');
      cell(tr, g.ratio === null || g.status !== 'both' ? '-' : g.ratio.toFixed(3) + 'x');
      cell(tr, fmtN(g.base_count));
      cell(tr, g.base_count ? fmtT(g.base_norm_ns) : '-');
      cell(tr, g.base_count ? fmtT(g.base_total_ns / g.base_count) : '-');
      cell(tr, fmtN(g.new_count));
      cell(tr, g.new_count ? fmtT(g.new_norm_ns) : '-');
      cell(tr, g.new_count ? fmtT(g.new_total_ns / g.new_count) : '-');
      cell(tr, g.p_value === null ? '-' : g.p_value < 1e-4 ? '<1e-4' : g.p_value.toFixed(4));
      const td = cell(tr, g.name);
      const tags = [];
      if (g.status === 'only_base') tags.push(['only in BASE', '']);
      if (g.status === 'only_new') tags.push(['only in NEW', '']);
      if (!g.shown) tags.push(['below --min-share', '']);
      if (g.regression) tags.push(['regression', 'reg']);
      for (const [p, side] of [['base', 'BASE'], ['new', 'NEW']]) { // sampled device timing: estimates
        const t = g[p + '_device_timed_computes'], c = g[p + '_computes'];
        if (t && c) tags.push([side + ' device-timed ' + fmtN(t) + ' / ' + fmtN(c) + ' computes, est. ' +
          fmtT(g[p + '_estimated_total_ns'] / c) + ' per compute', 'est']);
      }
      for (const [t, c] of tags) { const s = document.createElement('span'); s.className = 'tag ' + c; s.textContent = t; td.appendChild(s); }
      body.appendChild(tr);
    }
    $('groupnote').textContent = '(' + X.summary.both + ' in both, ' + X.summary.only_base + ' only in BASE, ' +
      X.summary.only_new + ' only in NEW, ' + X.summary.not_significant + ' within noise ~' +
      (unit === 'none' ? '' : '; totals per ' + unit) + ')';
    for (const th of document.querySelectorAll('#groups th')) th.classList.toggle('sorted', th.dataset.k === sortKey);
  }
  for (const th of document.querySelectorAll('#groups th'))
    th.addEventListener('click', () => {
      if (sortKey === th.dataset.k) sortDesc = !sortDesc; else { sortKey = th.dataset.k; sortDesc = true; }
      renderTable();
    });
  function select(i) {
    selRow = i === selRow ? -1 : i;
    updateMatch(); renderTable(); schedule();
  }
  body.addEventListener('click', (e) => {
    const tr = e.target.closest('tr');
    if (tr && tr.dataset.i !== undefined) select(Number(tr.dataset.i));
  });
  $('search').addEventListener('input', (e) => {
    filter = e.target.value.trim().toLowerCase();
    updateMatch(); renderTable(); schedule();
  });

  if (X.fusion.length) {
    $('fusionbox').hidden = false;
    const fb = $('fusionbody');
    const side = (calls, kern, ns, ggml) => (calls ? (kern / calls).toPrecision(3).replace(/\.?0+$/, '') +
      ' kernel' + (kern === calls ? '' : 's') + '/call \u00d7 ' + fmtN(calls) + ' = ' + fmtT(ns) : ggml ? 'no run of these ops' : 'no calls');
    for (const f of X.fusion) {
      const tr = document.createElement('tr');
      cell(tr, fmtT(f.delta_ns, true), f.delta_ns > 0 ? 'up' : f.delta_ns < 0 ? 'down' : '');
      cell(tr, side(f.base_calls, f.base_kernels, f.base_ns, f.kind === 'ggml'));
      cell(tr, side(f.new_calls, f.new_kernels, f.new_ns, f.kind === 'ggml'));
      cell(tr, f.name + (f.kind === 'ggml' ? '  (fused ggml nodes)' : '  (CPU op)'));
      fb.appendChild(tr);
    }
  }

  // The Splits button, where a run's backend has several splits: a lane per split, or one per backend.
  const splitsBtn = $('splits');
  function setSplits(on) {
    perSplit = on;
    for (const t of T) layoutLanes(t);
    resize(); schedule();
    splitsBtn.textContent = perSplit ? 'Collapse splits' : 'Expand splits';
    splitsBtn.setAttribute('aria-pressed', String(perSplit));
  }
  if (T.some((t) => t.shown.some((d) => d.members.length > 1))) {
    splitsBtn.hidden = false;
    splitsBtn.addEventListener('click', () => setSplits(!perSplit));
  }

  resize();
  updateMatch();
  renderTable();
  window.addEventListener('resize', () => { resize(); schedule(); });
  draw();
  // For tests: what the page decoded.
  window.opscopeDiff = { kept: [T[0].rSig.length, T[1].rSig.length], groups: rows.length,
    rowsShown: () => body.children.length, select, drawCount: () => drawCount,
    setSplits: (on) => { setSplits(!!on); draw(); },
    // per run: the shown lanes (label, backend, copy, splits, top and height in canvas css px,
    // scroll applied) and the canvas's css height and page box
    lanes: () => T.map((t) => { const r = t.cv.getBoundingClientRect();
      return { canvas: { top: r.top + window.scrollY, height: t.cssH, contentH: t.contentH, top0: t.top },
        lanes: t.shown.map((d, k) => ({ label: shownLabel(t, k), backend: t.backendName(d.backend), copy: d.copy,
          splits: d.members.map((l) => t.lanes[l].split), y: d.y - t.scroll, h: d.h })) }; }),
    // per run: its phase bands (ns after the run's first record) and compute count
    bands: () => T.map((t) => ({ graphs: t.nG, phases: t.phaseRuns.map((r) => { const [x, w] = spanX(r.start, r.end);
      return { phase: r.phase, label: phaseLabel(r), start: r.start, end: r.end, n: r.n, x0: LABEL_W + x, x1: LABEL_W + x + w }; }) })),
  };
})();
