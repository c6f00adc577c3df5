// thread_lanes.js OPSCOPE OUTDIR [PROFILE.json.gz...]
// The viewer's lanes of CPU threads (every thread's work and wait at ggml's barriers, the
// records' `threads` and `thread_cpus`) in Debian's headless chromium, on a profile written
// here (3 threads, some nodes where a thread has no work, CPU nodes without per-thread times,
// an aborted compute's) and on each real capture given: one lane per thread labelled with
// its CPU as the records give it, and per thread the number of work and wait segments drawn
// at the whole span and in zoomed views, counted here from the profile's records (a node's
// work is drawn from its start for `threads[2i]` ns, its wait after it for `threads[2i+1]`,
// as the Chrome export's tracks); pixels of the lanes in a screenshot (work in colour, wait
// grey); the tooltip over a work segment; a page of a profile without per-thread times has
// no thread data and draws no thread lane.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { execFileSync } = require('child_process');
const { launch } = require('./browser');
const { decodePng } = require('./png');

const [opscope, outDir, ...real] = process.argv.slice(2);
fs.mkdirSync(outDir, { recursive: true });

let failures = 0;
function check(cond, what, detail) {
  if (cond) console.log('ok   ' + what);
  else { failures++; console.log('FAIL ' + what + (detail !== undefined ? ': ' + JSON.stringify(detail) : '')); }
}

// A profile of 30 graph computes of 5 nodes on 3 threads (a small deterministic generator),
// thread 2 idle on every ADD, then 10 CPU nodes without per-thread times.
function written() {
  let seed = 7;
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const recs = [];
  let t = 5000;
  for (let g = 0; g < 30; g++) {
    for (const name of ['MUL_MAT', 'ADD', 'MUL_MAT', 'RMS_NORM', 'SOFT_MAX']) {
      const w = [1000 + rnd(4000), 1000 + rnd(4000), name === 'ADD' ? 0 : 500 + rnd(6000)];
      const top = Math.max(...w);
      recs.push({ type: 0, name, backend_id: 0, split_id: 0, graph_id: g, start_ns: t, duration_ns: top, bytes: 64,
        threads: w.flatMap((x) => [x, top - x]), thread_cpus: [0, g < 20 ? 1 : 3, -1] });
      t += top + 200;
    }
  }
  for (let i = 0; i < 10; i++) {
    recs.push({ type: 0, name: 'ADD', backend_id: 0, split_id: 0, graph_id: 30, start_ns: t, duration_ns: 800, bytes: 8 });
    t += 1000;
  }
  return { profiler: 'opscope', version: 3, backends: [{ id: 0, name: 'CPU', device: 'CPU', device_type: 0 }], records: recs };
}

// What the records say, computed here: per thread its last known CPU, and the nodes (start
// after the first record, work, wait) of the records that carry per-thread times.
function expected(doc) {
  const t0 = Math.min(...doc.records.map((r) => r.start_ns));
  const withT = doc.records.filter((r) => Array.isArray(r.threads) && r.threads.length);
  const n = Math.max(0, ...withT.map((r) => r.threads.length / 2));
  const cpus = new Array(n).fill(-1);
  const nodes = Array.from({ length: n }, () => []);
  for (const r of withT) {
    for (let i = 0; i < r.threads.length / 2; i++) {
      if (r.thread_cpus && r.thread_cpus[i] >= 0) cpus[i] = r.thread_cpus[i];
      nodes[i].push([r.start_ns - t0, r.threads[2 * i], r.threads[2 * i + 1]]);
    }
  }
  return { n, cpus, nodes, records: withT.length };
}

// Per thread, the work and wait segments that reach into [A, B] (ns after the first record).
function counts(want, a, b) {
  return want.nodes.map((ns) => ({
    work: ns.filter(([s, wk]) => wk > 0 && s <= b && s + wk >= a).length,
    wait: ns.filter(([s, wk, wt]) => wt > 0 && s + wk <= b && s + wk + wt >= a).length,
  }));
}

async function checkPage(context, name, doc, shot) {
  const input = path.join(outDir, name + '.json');
  fs.writeFileSync(input, JSON.stringify(doc));
  const html = path.join(outDir, name + '.html');
  execFileSync(opscope, ['view', input, '-o', html, '-q']);
  const want = expected(doc);
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.setViewportSize({ width: 1400, height: 1400 });
  await page.goto('file://' + html);
  await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 60000 });
  const th = await page.evaluate(() => opscope.threads());
  check(th.lanes === want.n && th.records === want.records,
    `${name}: one lane per thread (${want.n}), the ${want.records} nodes with per-thread times`, { lanes: th.lanes, records: th.records });
  const labels = want.cpus.map((c, i) => 'CPU thread ' + i + (c >= 0 ? ' (CPU ' + c + ')' : ''));
  check(JSON.stringify(th.labels) === JSON.stringify(labels), `${name}: lanes labelled with each thread's CPU (${labels.join(', ')})`, th.labels);
  check(th.laneY.every((y) => y >= 0 && y + th.laneH <= th.canvasH), `${name}: every thread lane in the canvas`, th);

  // the whole span, then windows of about 1/8 of it where each node is wider than a pixel
  const v = await page.evaluate(() => opscope.view());
  const span = v.full1 - v.full0;
  const windows = [[v.full0, v.full1]];
  for (const f of [0.1, 0.45, 0.8]) windows.push([v.full0 + f * span, v.full0 + (f + 0.125) * span]);
  for (const [a, b] of windows) {
    await page.evaluate(([x, y]) => opscope.setView(x, y), [a, b]);
    const got = await page.evaluate(() => ({ v: opscope.view(), d: opscope.threads().drawn }));
    const c = counts(want, got.v.t0, got.v.t1);
    const narrow = got.d.reduce((s, x) => s + x.columns, 0);
    const same = got.d.length === c.length && c.every((x, i) => got.d[i].work === x.work && got.d[i].wait === x.wait);
    const what = `view ${Math.round(got.v.t0)}..${Math.round(got.v.t1)} ns`;
    if (narrow === 0) {
      check(same, `${name}, ${what}: work segments per thread ${c.map((x) => x.work).join('/')}, ` +
        `wait segments ${c.map((x) => x.wait).join('/')}, as counted from the records`, { drawn: got.d, want: c });
    } else { // nodes narrower than a pixel are drawn as columns: every node in view is in one or drawn
      const inView = want.nodes.map((ns) => ns.filter(([s, wk, wt]) => (wk || wt) && s <= got.v.t1 && s + wk + wt >= got.v.t0).length);
      check(got.d.every((x, i) => x.work <= inView[i] && x.work + x.inColumns >= inView[i]),
        `${name}, ${what}: every node in view drawn or in a pixel column (${inView.join('/')})`, { drawn: got.d, inView });
    }
  }
  // zoom until no node is narrower than a pixel: there the counts are exact
  // (around the middle node of thread 0, from an eighth of the span down)
  let zoom = span / 8, exact = false;
  const mid = want.nodes[0][want.nodes[0].length >> 1][0];
  for (let tries = 0; tries < 24 && !exact; tries++, zoom /= 2) {
    await page.evaluate(([x, y]) => opscope.setView(x, y), [mid - zoom / 2, mid + zoom / 2]);
    const got = await page.evaluate(() => ({ v: opscope.view(), d: opscope.threads().drawn }));
    if (got.d.some((x) => x.columns)) continue;
    exact = true;
    const c = counts(want, got.v.t0, got.v.t1);
    check(c.every((x, i) => got.d[i].work === x.work && got.d[i].wait === x.wait) && c.some((x) => x.work > 0),
      `${name}, zoomed to ${Math.round(got.v.t1 - got.v.t0)} ns: work ${c.map((x) => x.work).join('/')}, ` +
      `wait ${c.map((x) => x.wait).join('/')} per thread`, { drawn: got.d, want: c });
  }
  check(exact, `${name}: a zoom where every node in view is wider than a pixel`);

  // a screenshot at a view of a few nodes: each lane has colour where a node's work is and grey
  // where its wait is, at the middle of the lane
  const n0 = want.nodes[0]; // a node whose wait ends before the next one starts
  const t = n0.find(([s, wk, wt], k) => wt > 2000 && wk > 2000 && s > span * 0.3 && k + 1 < n0.length && s + wk + wt < n0[k + 1][0]);
  if (t) {
    const [s, wk, wt] = t;
    await page.evaluate(([x, y]) => opscope.setView(x, y), [s - (wk + wt) / 4, s + (wk + wt) * 1.5]);
    const L = await page.evaluate(() => ({ LABEL_W: opscope.layout.LABEL_W, v: opscope.view(), th: opscope.threads() }));
    await page.locator('#timeline').screenshot({ path: shot });
    const img = decodePng(fs.readFileSync(shot));
    const W = img.width - L.LABEL_W, sx = (ns) => Math.round(L.LABEL_W + (ns - L.v.t0) * W / (L.v.t1 - L.v.t0));
    const px = (x, y) => { const o = (y * img.width + x) * 4; return [img.rgba[o], img.rgba[o + 1], img.rgba[o + 2]]; };
    const y = Math.round(L.th.laneY[0] + L.th.laneH / 2);
    const work = px(sx(s + wk / 2), y), wait = px(sx(s + wk + wt / 2), y), bg = px(sx(s + wk + wt / 2), Math.round(L.th.laneY[0] + 2)); // the lane above the wait's bar
    const grey = (c) => Math.max(...c) - Math.min(...c) < 32; // the theme's muted grey, not an op's hue
    check(!grey(work) && String(work) !== String(bg), `${name}: thread 0's work drawn in its op's colour`, { work, bg });
    check(grey(wait) && String(wait) !== String(bg) && String(wait) !== String(work), `${name}: thread 0's wait drawn apart, grey`, { wait, work, bg });
    const tipText = await page.evaluate(([x, yy]) => opscope.threadTipAt(x, yy), [sx(s + wk / 2), y]);
    check(/CPU thread 0/.test(tipText) && /Work/.test(tipText) && /Wait/.test(tipText), `${name}: the tooltip names the thread, its work and wait`, tipText);
  }
  check(errors.length === 0, `${name}: no page errors`, errors);
  await page.close();
}

(async () => {
  const { context, close } = await launch();
  const doc = written();
  await checkPage(context, 'written', doc, path.join(outDir, 'written.png'));
  for (const f of real) {
    const name = path.basename(f).replace(/\.json(\.gz)?$/, '');
    const raw = fs.readFileSync(f);
    await checkPage(context, name, JSON.parse((f.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8')),
      path.join(outDir, name + '.png'));
  }
  // without per-thread times: no thread data in the page, and no lane drawn
  const plain = { ...doc, records: doc.records.map(({ threads, thread_cpus, ...r }) => r) };
  const input = path.join(outDir, 'plain.json'), html = path.join(outDir, 'plain.html');
  fs.writeFileSync(input, JSON.stringify(plain));
  execFileSync(opscope, ['view', input, '-o', html, '-q']);
  const text = fs.readFileSync(html, 'utf8');
  check(!/"threads":\{/.test(text), 'plain: no thread data in the page');
  const page = await context.newPage();
  await page.goto('file://' + html);
  await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 60000 });
  check(await page.evaluate(() => opscope.threads().lanes === 0 && opscope.threads().drawn.length === 0 && opscope.N > 0),
    'plain: the viewer draws it without thread lanes');
  await page.close();
  await close();
  console.log(failures ? failures + ' check(s) failed' : 'viewer thread lanes: all checks passed');
  process.exit(failures ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
