// phase_bands.js OPSCOPE PYTHON3 BASE.json.gz NEW.json.gz OUTDIR
// A real llama.cpp run split between BLAS and the CPU (tests/viewer/data/blas-*.json.gz) in
// Debian's headless chromium, through `opscope view` and `opscope diff --html`:
// - the viewer and both runs of the diff page draw a phase band per run of prefill / decode
//   computes and a band per graph compute, with the labels, spans and phases that
//   phase_spans.py computes from the profile's records alone, painted in the phase's colour,
//   and hovering a band names it;
// - the diff page shows one lane per backend (ops) and one for copies by default, each
//   canvas as tall as its lanes and both inside a 1600x1100 window: no lane scrolled out
//   of view; Expand splits gives a lane per split (the count phase_spans.py finds);
// - screenshots: OUTDIR/viewer.png, diff.png, diff-splits.png.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { execFileSync } = require('child_process');
const { launch } = require('./browser');

const [opscope, python, baseGz, newGz, outDir] = process.argv.slice(2);
fs.mkdirSync(outDir, { recursive: true });
const unzip = (gz, name) => { const p = path.join(outDir, name); fs.writeFileSync(p, zlib.gunzipSync(fs.readFileSync(gz))); return p; };
const baseJson = unzip(baseGz, 'base.json'), newJson = unzip(newGz, 'new.json');
const viewHtml = path.join(outDir, 'view.html'), diffHtml = path.join(outDir, 'diff.html');
execFileSync(opscope, ['view', baseJson, '-o', viewHtml, '-q']);
execFileSync(opscope, ['diff', baseJson, newJson, '--html', diffHtml, '-q'], { stdio: ['ignore', 'ignore', 'inherit'] });
const expect = (p) => JSON.parse(execFileSync(python, [path.join(__dirname, 'phase_spans.py'), p], { encoding: 'utf8' }));
const X = [expect(baseJson), expect(newJson)];

let failures = 0;
function check(cond, what, detail) {
  if (cond) console.log('ok   ' + what);
  else { failures++; console.log('FAIL ' + what + (detail !== undefined ? ': ' + JSON.stringify(detail) : '')); }
}
for (const x of X)
  check(x.runs.length >= 2 && x.runs[0].phase === 'prefill' && x.runs.some((r) => r.phase === 'decode'),
    'the fixture tells a story: prefill first, then decode (' + x.runs.map((r) => r.phase + ' x' + r.n).join(', ') + ')');

// the page's phase runs against the expected ones: phase, start, end (ns, exact), computes, label
function samePhases(got, want, who) {
  const bad = [];
  if (got.length !== want.length) bad.push(['count', got.length, want.length]);
  for (let k = 0; k < Math.min(got.length, want.length); k++) {
    const g = got[k], w = want[k];
    if (g.phase !== w.phase || g.start !== w.start || g.end !== w.end || g.n !== w.n) bad.push([k, g, w]);
    const label = w.phase + ' \u00b7 ' + w.n + (w.n === 1 ? ' compute' : ' computes');
    if (g.label !== label) bad.push([k, g.label, label]);
  }
  check(!bad.length, who + ': ' + want.length + ' phase bands with the phases, spans and labels of the records (' +
    want.map((w) => w.phase + ' ' + (w.start / 1e6).toFixed(3) + '-' + (w.end / 1e6).toFixed(3) + ' ms').join(', ') + ')', bad);
}
// the pixel at the middle of each visible band is the phase's colour: prefill and decode
// differ from each other and from the strip's background (the panel's colour, as the axis')
async function bandPixels(page, canvasId, bands, y) {
  return page.evaluate(([id, bs, yy]) => {
    const c = document.getElementById(id), g = c.getContext('2d');
    const px = (x) => Array.from(g.getImageData(Math.round(x), Math.round(yy), 1, 1).data.slice(0, 3)).join(',');
    const bg = Array.from(g.getImageData(2, 2, 1, 1).data.slice(0, 3)).join(','); // the panel, as under the bands
    return { bg, bands: bs.map((b) => px(Math.max(b.x0 + 3, Math.min((b.x0 + b.x1) / 2, c.width - 3)))) };
  }, [canvasId, bands, y]);
}

(async () => {
  const { context, close } = await launch();
  const errors = [];
  try {
    // ---- the viewer
    const page = await context.newPage();
    await page.setViewportSize({ width: 1600, height: 1000 });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto('file://' + viewHtml);
    await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 60000 });
    const B = await page.evaluate(() => window.opscope.bands());
    samePhases(B.phases, X[0].runs, 'viewer');
    const wantG = X[0].graphs;
    const badG = [];
    if (B.graphs.length !== wantG.length) badG.push(['count', B.graphs.length, wantG.length]);
    wantG.forEach((w, i) => { const g = B.graphs[i] || {};
      if (g.id !== w.id || g.phase !== w.phase || g.batch !== w.batch || g.start !== w.start || g.end !== w.end ||
        g.label !== 'graph ' + w.id + ' \u00b7 batch ' + w.batch) badG.push([i, g, w]); });
    check(!badG.length, 'viewer: a band per graph compute (' + wantG.length + ') with its id, phase, batch and span', badG);
    const pv = await bandPixels(page, 'timeline', B.phases, B.phases[0].y);
    const kinds = new Map();
    B.phases.forEach((b, k) => { if (!kinds.has(b.phase)) kinds.set(b.phase, pv.bands[k]); });
    check(pv.bands.every((c, k) => c !== pv.bg && c === kinds.get(B.phases[k].phase)) &&
      kinds.get('prefill') !== kinds.get('decode'), 'viewer: each phase band painted in its phase\u2019s colour', pv);
    // hovering the prefill band names it
    const box = await page.evaluate(() => document.getElementById('timeline').getBoundingClientRect().toJSON());
    const pre = B.phases[0];
    await page.mouse.move(box.x + (pre.x0 + pre.x1) / 2, box.y + pre.y);
    const tipText = await page.evaluate(() => { const t = document.getElementById('tip'); return t.hidden ? '' : t.textContent; });
    check(/^prefill/.test(tipText) && tipText.includes('Computes: ' + X[0].runs[0].n), 'viewer: hovering the prefill band names it', tipText);
    await page.mouse.move(0, 0);
    const lanesV = await page.evaluate(() => window.opscope.shownLanes());
    check(lanesV === X[0].backend_lanes.length, 'viewer: one lane per backend and kind (' + lanesV + ')');
    const VL = await page.evaluate(() => ({ top: opscope.layout.TOP, y: opscope.layout.laneY, h: opscope.layout.laneH,
      view: document.getElementById('tlwrap').clientHeight }));
    check(VL.y[0] >= VL.top && VL.y.every((y, k) => y + VL.h[k] <= VL.view), 'viewer: every lane below the bands and in view (' +
      VL.y.length + ' lanes, ' + VL.view + ' px)', VL);
    await page.screenshot({ path: path.join(outDir, 'viewer.png') });

    // ---- the diff page
    const dp = await context.newPage();
    await dp.setViewportSize({ width: 1600, height: 1100 });
    dp.on('pageerror', (e) => errors.push(String(e)));
    dp.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await dp.goto('file://' + diffHtml);
    await dp.waitForFunction(() => window.opscopeDiff && window.opscopeDiff.drawCount() > 0, null, { timeout: 60000 });
    const DB = await dp.evaluate(() => window.opscopeDiff.bands());
    ['BASE', 'NEW'].forEach((who, k) => samePhases(DB[k].phases, X[k].runs, 'diff page ' + who));
    for (const [k, id] of [[0, 'tlbase'], [1, 'tlnew']]) {
      const px = await bandPixels(dp, id, DB[k].phases.filter((b) => b.x1 - b.x0 >= 3), 22 + 1 + 8);
      check(px.bands.length >= 2 && px.bands.every((c) => c !== px.bg) && new Set(px.bands).size >= 2,
        'diff page ' + (k ? 'NEW' : 'BASE') + ': phase bands painted, prefill and decode apart', px);
    }
    const L = await dp.evaluate(() => window.opscopeDiff.lanes());
    for (let k = 0; k < 2; k++) {
      const who = k ? 'NEW' : 'BASE', run = L[k];
      const got = run.lanes.map((l) => [l.backend, l.copy]).sort();
      check(JSON.stringify(got) === JSON.stringify(X[k].backend_lanes),
        'diff page ' + who + ': one lane per backend and kind by default (' + run.lanes.map((l) => l.label).join(' | ') + ')',
        { got, want: X[k].backend_lanes });
      const out = run.lanes.filter((l) => l.y < run.canvas.top0 || l.y + l.h > run.canvas.height);
      check(!out.length && run.canvas.height === run.canvas.contentH, 'diff page ' + who + ': every lane inside its canvas (' +
        run.canvas.height + ' px tall, nothing to scroll)', { out, canvas: run.canvas });
      check(run.canvas.top + run.canvas.height <= 1100, 'diff page ' + who + ': its canvas inside the 1600x1100 window (bottom at ' +
        Math.round(run.canvas.top + run.canvas.height) + ' px)');
    }
    // the BLAS lane of BASE is painted in the prefill (its matrix products are there)
    const blasPainted = await dp.evaluate(() => {
      const run = window.opscopeDiff.lanes()[0], lane = run.lanes.find((l) => l.backend === 'BLAS');
      const c = document.getElementById('tlbase'), g = c.getContext('2d');
      const d = g.getImageData(181, lane.y + 4, c.width - 181, lane.h - 8).data, bg = d.slice(0, 3).join(',');
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if ([d[i], d[i + 1], d[i + 2]].join(',') !== bg) n++;
      return n;
    });
    check(blasPainted > 100, 'diff page BASE: its BLAS lane is drawn in view (' + blasPainted + ' px painted)');
    await dp.screenshot({ path: path.join(outDir, 'diff.png') });
    const btn = await dp.evaluate(() => { const b = document.getElementById('splits'); return b.hidden ? null : b.textContent; });
    check(btn === 'Expand splits', 'diff page: the Splits button offers to expand', btn);
    await dp.click('#splits');
    const LS = await dp.evaluate(() => window.opscopeDiff.lanes());
    for (let k = 0; k < 2; k++) {
      const n = LS[k].lanes.length, splits = LS[k].lanes.every((l) => l.splits.length === 1 && /split -?\d+$/.test(l.label));
      check(n === X[k].split_lanes && splits, 'diff page ' + (k ? 'NEW' : 'BASE') + ': Expand splits gives a lane per split (' + n + ')',
        { n, want: X[k].split_lanes, labels: LS[k].lanes.map((l) => l.label).slice(0, 4) });
    }
    await dp.screenshot({ path: path.join(outDir, 'diff-splits.png') });
    await dp.click('#splits');
    const back = await dp.evaluate(() => window.opscopeDiff.lanes().map((r) => r.lanes.length));
    check(back[0] === X[0].backend_lanes.length && back[1] === X[1].backend_lanes.length, 'diff page: Collapse splits restores a lane per backend', back);
    check(!errors.length, 'no page errors', errors);
  } finally {
    await close();
  }
  console.log('screenshots: ' + ['viewer.png', 'diff.png', 'diff-splits.png'].map((f) => path.join(outDir, f)).join(' '));
  console.log(failures ? `FAILED: ${failures}` : 'passed');
  process.exit(failures ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
