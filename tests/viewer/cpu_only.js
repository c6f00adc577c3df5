// cpu_only.js OPSCOPE OUTDIR TRACE.json.gz...
// `opscope view` of CPU-only PyTorch traces (no GPU activity: HTA's real one, and a small MLP
// trained under torch.profiler, tests/viewer/data), and of their Chrome export
// (`opscope report --chrome-trace`) read back, in Debian's headless chromium: the drawn span
// equals the trace's own span (its first CPU slice's start to its last one's end, read here
// from the trace), one CPU lane per thread with the trace's nesting depth, every CPU slice
// and profiler step there, pixels drawn in the CPU rows of a screenshot.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { execFileSync } = require('child_process');
const { launch } = require('./browser');
const { decodePng } = require('./png');

const [opscope, outDir, ...traces] = process.argv.slice(2);
fs.mkdirSync(outDir, { recursive: true });
const CPU_CATS = new Set(['cpu_op', 'user_annotation', 'python_function', 'cuda_runtime', 'cuda_driver']);

let failures = 0;
function check(cond, what, detail) {
  if (cond) console.log('ok   ' + what);
  else { failures++; console.log('FAIL ' + what + (detail !== undefined ? ': ' + JSON.stringify(detail) : '')); }
}

// The trace's CPU side, read here: span (ns), threads, deepest nesting, slices, steps.
function expected(file) {
  const raw = fs.readFileSync(file);
  const doc = JSON.parse((file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8'));
  const evs = (doc.traceEvents || doc).filter((e) => e && e.ph === 'X' && CPU_CATS.has(e.cat));
  const ns = (us) => Math.round(Number(us) * 1000);
  let t0 = Infinity, t1 = -Infinity;
  const byThread = new Map();
  for (const e of evs) {
    const a = ns(e.ts), b = a + Math.max(ns(e.dur), 0);
    t0 = Math.min(t0, a); t1 = Math.max(t1, b);
    const k = e.pid + '/' + e.tid;
    if (!byThread.has(k)) byThread.set(k, []);
    byThread.get(k).push([a, b]);
  }
  // nesting: on each thread, a slice inside the one still open (start order, longer first)
  let depth = 0;
  for (const iv of byThread.values()) {
    iv.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
    const ends = [];
    for (const [a, b] of iv) {
      while (ends.length && ends[ends.length - 1] <= a) ends.pop();
      depth = Math.max(depth, ends.length);
      ends.push(b);
    }
  }
  const steps = evs.filter((e) => e.cat === 'user_annotation' && /^ProfilerStep#/.test(e.name)).length;
  return { span: t1 - t0, threads: byThread.size, depth, slices: evs.length, steps };
}

async function checkPage(context, pagePath, want, label, shot) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto('file://' + pagePath);
  await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 30000 });
  const v = await page.evaluate(() => opscope.view());
  const cpu = await page.evaluate(() => opscope.cpu());
  // the slices' times are integer ns in the page: the span is exact up to the µs text's rounding
  check(Math.abs((v.full1 - v.full0) - want.span) <= 2, `${label}: the page's span is the trace's (${want.span} ns)`,
    { page: v.full1 - v.full0, trace: want.span });
  check(Math.abs((v.t1 - v.t0) - want.span) <= 2, `${label}: the drawn view at load spans the trace`, { view: v.t1 - v.t0, trace: want.span });
  const viewText = await page.evaluate(() => document.getElementById('view').textContent);
  check(/span /.test(viewText) && !/\d{5,} s/.test(viewText), `${label}: the view line names a span of the trace's size`, viewText);
  check(cpu.threads === want.threads, `${label}: one CPU lane per thread (${want.threads})`, cpu.threads);
  const depth = Math.max(...cpu.rows.map((r) => r.depth));
  check(depth === want.depth, `${label}: nesting depth ${want.depth} as in the trace`, depth);
  check(cpu.slices === want.slices && cpu.steps === want.steps,
    `${label}: every CPU slice (${want.slices}) and profiler step (${want.steps}) in the lanes`, { slices: cpu.slices, steps: cpu.steps });
  // a screenshot: the CPU rows are drawn (pixels other than the row's background at its right end)
  await page.locator('#timeline').screenshot({ path: shot });
  const img = decodePng(fs.readFileSync(shot));
  const L = await page.evaluate(() => ({ LABEL_W: opscope.layout.LABEL_W, ROW_H: opscope.layout.ROW_H }));
  const px = (x, y) => { const o = (y * img.width + x) * 4; return (img.rgba[o] << 16) | (img.rgba[o + 1] << 8) | img.rgba[o + 2]; };
  let drawnRows = 0;
  for (const r of cpu.rows) {
    const y = Math.round(r.y + L.ROW_H / 2);
    if (y <= 0 || y >= img.height) continue;
    const colours = new Set();
    for (let x = L.LABEL_W + 1; x < img.width; x++) colours.add(px(x, y));
    if (colours.size > 1) drawnRows++;
  }
  check(drawnRows >= Math.min(cpu.rows.length, 2), `${label}: the screenshot has its CPU rows drawn (${drawnRows} of ${cpu.rows.length})`, drawnRows);
  check(errors.length === 0, `${label}: no page errors`, errors);
  await page.close();
}

(async () => {
  const { context, close } = await launch();
  for (const t of traces) {
    const name = path.basename(t).replace(/\.json(\.gz)?$/, '');
    const want = expected(t);
    check(want.slices > 0 && want.steps > 0, `${name}: a CPU-only trace with steps`, want);
    const html = path.join(outDir, name + '.html');
    execFileSync(opscope, ['view', t, '-o', html, '-q']);
    await checkPage(context, html, want, name + ' view', path.join(outDir, name + '.png'));
    // the Chrome export, read back: the same CPU side (its steps on a lane of their own)
    const exp = path.join(outDir, name + '.chrome.json');
    execFileSync(opscope, ['report', '-q', '--chrome-trace', exp, t]);
    const wantExp = expected(exp);
    check(wantExp.span === want.span && wantExp.slices === want.slices,
      `${name}: the Chrome export keeps every CPU slice and the span`, { export: wantExp, trace: want });
    const html2 = path.join(outDir, name + '.chrome.html');
    execFileSync(opscope, ['view', exp, '-o', html2, '-q']);
    await checkPage(context, html2, wantExp, name + ' chrome export view', path.join(outDir, name + '.chrome.png'));
  }
  await close();
  console.log(failures ? failures + ' check(s) failed' : 'viewer CPU-only traces: all checks passed');
  process.exit(failures ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
