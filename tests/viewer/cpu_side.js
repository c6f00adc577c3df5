// cpu_side.js OPSCOPE TRACE.json.gz OUTDIR
// `opscope view` of a real Kineto trace (HTA's A100 training step) in Debian's headless
// chromium: the page's CPU lanes hold every cpu_op, runtime call, user annotation and Python
// function of the trace, the
// profiler steps are marked, and the GPU busy fraction per device equals the union of the
// device's kernels, memcpys and memsets over the steps' window, all computed here from the
// trace itself.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { execFileSync } = require('child_process');
const { launch } = require('./browser');
const { decodePng } = require('./png');

const [opscope, trace, outDir] = process.argv.slice(2);
fs.mkdirSync(outDir, { recursive: true });
const page_ = path.join(outDir, 'trace.html');
execFileSync(opscope, ['view', trace, '-o', page_, '-q']);

let failures = 0;
function check(cond, what, detail) {
  if (cond) console.log('ok   ' + what);
  else { failures++; console.log('FAIL ' + what + (detail !== undefined ? ': ' + JSON.stringify(detail) : '')); }
}

// The trace, read here: its CPU slices, steps, and each device's GPU activity.
const doc = JSON.parse(zlib.gunzipSync(fs.readFileSync(trace)).toString('utf8'));
const evs = (doc.traceEvents || doc).filter((e) => e && e.ph === 'X');
const RUNTIME = new Set(['cuda_runtime', 'cuda_driver']);
const nCpuOps = evs.filter((e) => e.cat === 'cpu_op').length;
const nRuntime = evs.filter((e) => RUNTIME.has(e.cat)).length;
const nAnnot = evs.filter((e) => e.cat === 'user_annotation' || e.cat === 'python_function').length;
const steps = evs.filter((e) => e.cat === 'user_annotation' && /^ProfilerStep#/.test(e.name));
const w0 = Math.min(...steps.map((e) => e.ts)), w1 = Math.max(...steps.map((e) => e.ts + e.dur)); // us
const busy = new Map();
for (const e of evs) {
  if (!['kernel', 'gpu_memcpy', 'gpu_memset'].includes(e.cat)) continue;
  const a = Math.max(e.ts, w0), b = Math.min(e.ts + e.dur, w1);
  if (b > a) { if (!busy.has(e.pid)) busy.set(e.pid, []); busy.get(e.pid).push([a, b]); }
}
const busyFrac = new Map();
for (const [dev, iv] of busy) {
  iv.sort((x, y) => x[0] - y[0]);
  let tot = 0, s = -Infinity, t = -Infinity;
  for (const [a, b] of iv) { if (a > t) { if (t > s) tot += t - s; s = a; t = b; } else t = Math.max(t, b); }
  if (t > s) tot += t - s;
  busyFrac.set(dev, tot / (w1 - w0));
}

(async () => {
  const { context, close } = await launch();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto('file://' + page_);
  await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 30000 });
  const cpu = await page.evaluate(() => opscope.cpu());
  check(cpu.slices === nCpuOps + nRuntime + nAnnot,
    `CPU lanes hold every cpu_op, runtime call, annotation and Python function (${cpu.slices} = ${nCpuOps} + ${nRuntime} + ${nAnnot})`, cpu.slices);
  check(cpu.threads >= 1 && cpu.steps === steps.length, `CPU threads shown (${cpu.threads}); ${steps.length} profiler step(s)`, cpu.steps);
  const got = new Map(cpu.busy.map((b) => [b[0], b[1] / (b[1] + b[2])]));
  check(got.size === busyFrac.size && [...busyFrac].every(([d, f]) => Math.abs(got.get(d) - f) < 1e-3),
    'GPU busy per device = the union of its activity over the steps\' window', { page: [...got], trace: [...busyFrac] });
  const pct = [...busyFrac.values()].map((f) => (100 * f).toFixed(1) + '%');
  check(pct.every((p) => cpu.text.includes(p)) && /GPU busy/.test(cpu.text), 'the page says the busy fraction', cpu.text);
  // drawn: the CPU lanes' rows have pixels besides their background; the step line is there
  const shot = path.join(outDir, 'trace.png');
  await page.locator('#timeline').screenshot({ path: shot });
  const img = decodePng(fs.readFileSync(shot));
  const L = await page.evaluate(() => ({ LABEL_W: opscope.layout.LABEL_W, ROW_H: opscope.layout.ROW_H }));
  // the row of most slices (gaps between them show the background; a depth-0 row may be one
  // ProfilerStep# annotation as wide as the view)
  const row0 = cpu.rows.reduce((a, r) => (r.n > a.n ? r : a));
  let other = 0;
  const bg = (x, y) => { const o = (y * img.width + x) * 4; return (img.rgba[o] << 16) | (img.rgba[o + 1] << 8) | img.rgba[o + 2]; };
  const ref = bg(img.width - 2, Math.round(row0.y + 2));
  for (let x = L.LABEL_W + 1; x < img.width; x++) if (bg(x, Math.round(row0.y + L.ROW_H / 2)) !== ref) other++;
  check(other > 100, 'the fullest CPU row is drawn', other);
  // hovering a runtime call names it
  const box = await page.evaluate(() => {
    for (let j = 0; ; j++) { const b = opscope.cpuBox(j); if (!b) return null; if (b.x1 - b.x0 > 4 && opscope.cpuKind(j) === 1) return b; }
  });
  const tl = await page.locator('#timeline').boundingBox();
  await page.mouse.move(tl.x + (box.x0 + box.x1) / 2, tl.y + box.y);
  await page.waitForTimeout(50);
  const tip = await page.evaluate(() => document.getElementById('tip').textContent);
  check(/Kind: runtime call/.test(tip) && /^cuda/.test(tip), 'hovering a runtime call names it', tip);
  check(errors.length === 0, 'no page errors', errors);
  await close();
  console.log(failures ? failures + ' check(s) failed' : 'viewer CPU side: all checks passed');
  process.exit(failures ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
