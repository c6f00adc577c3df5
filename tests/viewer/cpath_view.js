// cpath_view.js OPSCOPE OUTDIR TRACE... [--job DIR] [--annotated TRACE NAME INSTANCE]
// The critical path drawn by the viewer, in Debian's headless chromium, on
// HTA's critical-path test traces (alexnet, simple_add, cuda_event_sync) and a job's page.
// Per trace: `opscope report --json` says how many hops the path makes between lanes
// (summary.kineto.critical_path.hops) and `--chrome-trace` writes them as critical_path flows;
// in the page (`opscope view`) the Critical path button draws nothing until pressed, then one
// arrow per hop (as many as the JSON's and the Chrome export's), each from a CPU lane or GPU
// lane to one, as its kind says; every launch arrow runs from a runtime call's start to a GPU
// activity's start, both read here from the trace; the arrows change the screenshot's pixels.
// A job's page draws the sum of its ranks' hops. With --annotated, the page of
// `view --critical-path-annotation NAME --critical-path-instance I` draws the hops of
// `report` with the same options, one window, and its line names the annotation's instance.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { execFileSync } = require('child_process');
const { launch } = require('./browser');
const { decodePng } = require('./png');

const args = process.argv.slice(2);
const [opscope, outDir] = args;
const traces = [], jobs = [], annotated = [];
for (let i = 2; i < args.length; i++) {
  if (args[i] === '--job') jobs.push(args[++i]);
  else if (args[i] === '--annotated') { annotated.push(args.slice(i + 1, i + 4)); i += 3; }
  else traces.push(args[i]);
}
fs.mkdirSync(outDir, { recursive: true });

let failures = 0;
function check(cond, what, detail) {
  if (cond) console.log('ok   ' + what);
  else { failures++; console.log('FAIL ' + what + (detail !== undefined ? ': ' + JSON.stringify(detail) : '')); }
}

function reportOf(t, name, extra) {
  const js = path.join(outDir, name + '.json'), ct = path.join(outDir, name + '.chrome.json');
  execFileSync(opscope, ['report', t, '-q', '--json', js, '--chrome-trace', ct].concat(extra || []));
  const cp = JSON.parse(fs.readFileSync(js, 'utf8')).summary.kineto.critical_path;
  const doc = JSON.parse(fs.readFileSync(ct, 'utf8'));
  const flows = (doc.traceEvents || doc).filter((e) => e.cat === 'critical_path' && e.ph === 's').length;
  return { hops: cp.hops, steps: cp.steps.length, flows };
}

// The trace's runtime call starts and GPU activity starts, in µs (the page's times are ns after
// its first GPU activity).
function starts(t) {
  const raw = fs.readFileSync(t);
  const doc = JSON.parse((t.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8'));
  const evs = (doc.traceEvents || doc).filter((e) => e && e.ph === 'X');
  const gpu = evs.filter((e) => ['kernel', 'gpu_memcpy', 'gpu_memset'].includes(e.cat)).map((e) => Number(e.ts));
  const rt = evs.filter((e) => e.cat === 'cuda_runtime' || e.cat === 'cuda_driver').map((e) => Number(e.ts));
  const t0 = Math.min(...gpu);
  const rel = (a) => new Set(a.map((x) => Math.round((x - t0) * 1000)));
  return { gpu: rel(gpu), rt: rel(rt) };
}

async function openPage(context, html) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto('file://' + path.resolve(html));
  await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 60000 });
  return { page, errors };
}

async function pixelsChanged(page, shot, arrows) {
  const grab = async (f) => { await page.locator('#timeline').screenshot({ path: f }); return decodePng(fs.readFileSync(f)); };
  const on = await grab(shot);
  await page.evaluate(() => opscope.setCpath(false));
  const off = await grab(shot.replace('.png', '.off.png'));
  await page.evaluate(() => opscope.setCpath(true));
  let changed = 0, sampled = 0;
  for (const a of arrows) { // the arrow's middle, in the plot
    const x = Math.round((a.x0 + a.x1) / 2), y = Math.round((a.y0 + a.y1) / 2);
    if (x < 0 || y < 0 || x >= on.width || y >= on.height) continue;
    sampled++;
    const o = (y * on.width + x) * 4;
    if (on.rgba[o] !== off.rgba[o] || on.rgba[o + 1] !== off.rgba[o + 1] || on.rgba[o + 2] !== off.rgba[o + 2]) changed++;
  }
  return { changed, sampled };
}

async function checkTrace(context, t) {
  const name = path.basename(t).replace(/\.json(\.gz)?$/, '');
  const rep = reportOf(t, name);
  check(rep.hops > 0 && rep.hops === rep.flows, `${name}: report --json says ${rep.hops} hops, the Chrome export has as many flows`, rep);
  const html = path.join(outDir, name + '.html');
  execFileSync(opscope, ['view', t, '-o', html, '-q']);
  const { page, errors } = await openPage(context, html);
  const off = await page.evaluate(() => ({ hidden: document.getElementById('cpathbtn').hidden, cp: opscope.cpath() }));
  check(!off.hidden && off.cp.drawnArrows === 0, `${name}: the Critical path button shows, nothing drawn before it is pressed`, off);
  await page.click('#cpathbtn');
  await page.evaluate(() => opscope.redraw());
  const P = await page.evaluate(() => ({ cp: opscope.cpath(), hops: opscope.cpathHops(), lanes: opscope.laneLabels(),
    cpu: opscope.cpuLabels(), ROW_H: opscope.layout.ROW_H, pressed: document.getElementById('cpathbtn').getAttribute('aria-pressed') }));
  check(P.pressed === 'true' && P.cp.hops === rep.hops && P.cp.drawnArrows === rep.hops && P.cp.steps === rep.steps,
    `${name}: pressed, the whole path drawn: ${rep.hops} arrows over ${rep.steps} step(s), as the report's JSON`,
    { hops: P.cp.hops, drawn: P.cp.drawnArrows, steps: P.cp.steps });
  check(P.cp.drawnSegments === P.cp.segments && /^Critical path \(\d+ hops/.test(P.cp.text),
    `${name}: its ${P.cp.segments} segments along a lane drawn, the path's line under the view`, P.cp);
  // each arrow's ends on lanes of their kind
  const inside = (y, boxes) => boxes.some((b) => y >= b.y && y < b.y + b.h);
  const gpuBoxes = P.lanes.map((l) => ({ y: l.y, h: l.h }));
  const cpuYs = P.cpu.map((c) => c.y).sort((a, b) => a - b);
  const cpuBoxes = cpuYs.map((y, i) => ({ y, h: (i + 1 < cpuYs.length ? cpuYs[i + 1] : (gpuBoxes.length ? gpuBoxes[0].y : y + 1e6)) - y }));
  const bad = P.cp.arrows.filter((a) => !inside(a.y0, a.from === 'gpu' ? gpuBoxes : cpuBoxes) || !inside(a.y1, a.to === 'gpu' ? gpuBoxes : cpuBoxes));
  check(bad.length === 0, `${name}: every arrow starts and ends on a lane of its kind (CPU thread / GPU stream)`, bad.slice(0, 3));
  // launch hops: a runtime call's start -> a GPU activity's start, in the trace
  const st = starts(t);
  const launches = P.hops.filter((h) => P.cp.parts[h[2]] === 'launch');
  const badL = launches.filter((h) => !st.rt.has(Math.round(h[0])) || !st.gpu.has(Math.round(h[1])) || h[3][0] !== 0 || h[4][0] !== 1);
  check(launches.length > 0 && badL.length === 0,
    `${name}: its ${launches.length} launch arrows run from a runtime call's start on a CPU thread to a GPU activity's start`, badL.slice(0, 3));
  const px = await pixelsChanged(page, path.join(outDir, name + '.png'), P.cp.arrows);
  check(px.sampled > 0 && px.changed >= Math.ceil(px.sampled / 2),
    `${name}: the arrows are in the screenshot (${px.changed} of ${px.sampled} arrow middles differ from the page without them)`, px);
  check(errors.length === 0, `${name}: no page errors`, errors);
  await page.close();
}

async function checkJob(context, dir) {
  const name = path.basename(dir);
  const files = fs.readdirSync(dir).filter((f) => /\.json(\.gz)?$/.test(f));
  let hops = 0, steps = 0;
  for (const f of files) { const r = reportOf(path.join(dir, f), name + '-' + f.replace(/\.json(\.gz)?$/, '')); hops += r.hops; steps += r.steps; }
  const html = path.join(outDir, name + '.job.html');
  execFileSync(opscope, ['view', dir, '-o', html, '-q']);
  const { page, errors } = await openPage(context, html);
  const P = await page.evaluate(() => { opscope.setCpath(true); return opscope.cpath(); });
  check(P.hops === hops && P.drawnArrows === hops && P.steps === steps,
    `${name} (job): every rank's path drawn: ${hops} arrows, ${steps} steps, the sum of the ranks' reports`, P);
  check(/rank \d+ step/.test(P.text), `${name} (job): the path's line names each step's rank`, P.text);
  check(errors.length === 0, `${name} (job): no page errors`, errors);
  await page.close();
}

async function checkAnnotated(context, [t, ann, inst]) {
  const name = path.basename(t).replace(/\.json(\.gz)?$/, '') + '-annotated';
  const opts = ['--critical-path-annotation', ann, '--critical-path-instance', inst];
  const rep = reportOf(t, name, opts);
  const html = path.join(outDir, name + '.html');
  execFileSync(opscope, ['view', t, '-o', html, '-q'].concat(opts));
  const { page, errors } = await openPage(context, html);
  const P = await page.evaluate(() => { opscope.setCpath(true); return opscope.cpath(); });
  check(rep.steps === 1 && P.steps === 1 && P.hops === rep.hops && P.drawnArrows === rep.hops,
    `${name}: instance ${inst} of the annotation: ${rep.hops} arrows, one window, as report with the same options`, P);
  check(P.text.startsWith('Critical path of ' + ann + ' (') && P.text.includes(': instance ' + inst + ' '),
    `${name}: the path's line names the annotation and its instance`, P.text);
  check(errors.length === 0, `${name}: no page errors`, errors);
  await page.close();
}

(async () => {
  const { context, close } = await launch();
  for (const t of traces) await checkTrace(context, t);
  for (const d of jobs) await checkJob(context, d);
  for (const a of annotated) await checkAnnotated(context, a);
  await close();
  console.log(failures ? failures + ' check(s) failed' : 'critical path in the viewer: all checks passed');
  process.exit(failures ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
