// job_view.js OPSCOPE OUTDIR DIR[:RANK:CAUSE]...
// `opscope view DIR` (a distributed job) in Debian's headless chromium. For each
// folder of Kineto traces, the expected page is worked out here from the traces' JSON alone:
// each trace's rank (distributedInfo, else the number after "rank" in its file name), its CPU
// threads, GPU lanes (one per stream, copies apart) and activities, and its profiler steps'
// starts on the traces' shared clock. Checked: one group of lanes per rank, in rank order, each
// lane labelled and placed inside its rank's group; every activity and step in the page; the
// ranks' steps aligned as in the traces (their starts relative to the job's first activity, to
// the ns); the per-rank table equal to `opscope report DIR --json` (rank, steps, idle, compute,
// overlap), and, where the folder names one (RANK:CAUSE: the slower rank the gloo fixture made),
// the straggler and its cause in the page's first line and its row; each rank's rows drawn in a
// screenshot; a rank's row scrolls to its lanes; no page error, no request but file://.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { execFileSync } = require('child_process');
const { launch } = require('./browser');
const { decodePng } = require('./png');

const [opscope, outDir, ...jobs] = process.argv.slice(2);
fs.mkdirSync(outDir, { recursive: true });
const CPU_CATS = new Set(['cpu_op', 'user_annotation', 'python_function', 'cuda_runtime', 'cuda_driver']);
const GPU_CATS = new Set(['kernel', 'gpu_memcpy', 'gpu_memset']);

let failures = 0;
function check(cond, what, detail) {
  if (cond) console.log('ok   ' + what);
  else { failures++; console.log('FAIL ' + what + (detail !== undefined ? ': ' + JSON.stringify(detail) : '')); }
}

// One trace, read here: rank, CPU threads, GPU lanes, activities, steps and its first time
// (µs: ns since the epoch exceed 2^53; differences are taken in µs, then made ns)
function readTrace(file) {
  const raw = fs.readFileSync(file);
  const doc = JSON.parse((file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8'));
  const evs = (doc.traceEvents || doc).filter((e) => e && e.ph === 'X');
  let rank = doc.distributedInfo && Number.isInteger(doc.distributedInfo.rank) ? doc.distributedInfo.rank : -1;
  if (rank < 0) { const m = /rank[-_.]?(\d+)[^/]*$/i.exec(file); rank = m ? Number(m[1]) : -1; }
  const threads = new Set(), lanes = new Set(), steps = [];
  let acts = 0, firstAct = Infinity, firstCpu = Infinity;
  for (const e of evs) {
    if (CPU_CATS.has(e.cat)) {
      threads.add(e.pid + '/' + e.tid);
      firstCpu = Math.min(firstCpu, Number(e.ts));
      const m = e.cat === 'user_annotation' && /^ProfilerStep#(\d+)$/.exec(e.name);
      if (m) steps.push([Number(m[1]), Number(e.ts)]);
    } else if (GPU_CATS.has(e.cat)) {
      acts++;
      lanes.add(e.pid + '/' + e.tid + '/' + (e.cat === 'gpu_memcpy' ? 'copy' : 'op'));
      firstAct = Math.min(firstAct, Number(e.ts));
    }
  }
  steps.sort((a, b) => a[1] - b[1]);
  return { file, rank, threads: threads.size, lanes: lanes.size, acts, steps, t0: acts ? firstAct : firstCpu };
}

async function checkJob(context, dir, want) {
  const name = path.basename(dir);
  const files = fs.readdirSync(dir).filter((f) => /\.json(\.gz)?$/.test(f)).map((f) => path.join(dir, f));
  const traces = files.map(readTrace).sort((a, b) => a.rank - b.rank);
  const html = path.join(outDir, name + '.html'), js = path.join(outDir, name + '.json');
  execFileSync(opscope, ['view', dir, '-o', html, '-q']);
  execFileSync(opscope, ['report', dir, '--json', js, '-q']);
  const job = JSON.parse(fs.readFileSync(js, 'utf8')).summary.job;

  const page = await context.newPage();
  const errors = [], requests = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => { if (!r.url().startsWith('file:')) requests.push(r.url()); });
  await page.setViewportSize({ width: 1400, height: 900 });
  await page.goto('file://' + path.resolve(html));
  await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 60000 });
  const P = await page.evaluate(() => ({
    groups: opscope.groups(), cpu: opscope.cpuLabels(), lanes: opscope.laneLabels(), N: opscope.N,
    steps: opscope.jobSteps(), rows: opscope.cpu().rows, L: { LABEL_W: opscope.layout.LABEL_W, ROW_H: opscope.layout.ROW_H,
      AXIS_H: opscope.layout.AXIS_H },
    line: document.getElementById('jobline').textContent, cpuside: document.getElementById('cpuside').textContent,
    table: [...document.querySelectorAll('#jobbody tr')].map((tr) => ({ cls: tr.className,
      cells: [...tr.children].map((td) => td.textContent) })),
  }));

  // groups: one per rank, in rank order
  check(JSON.stringify(P.groups.map((g) => g.label)) === JSON.stringify(traces.map((t) => 'rank ' + t.rank)),
    `${name}: one group of lanes per rank, in rank order (${traces.length})`, P.groups.map((g) => g.label));
  const groupOf = (y) => { let k = -1; P.groups.forEach((g, i) => { if (y >= g.y) k = i; }); return k; };
  traces.forEach((t, k) => {
    const cpu = P.cpu.filter((c) => c.label.startsWith('rank ' + t.rank + ' \u00b7 '));
    const gpu = P.lanes.filter((l) => l.full.startsWith('rank ' + t.rank + ' \u00b7 '));
    check(cpu.length === t.threads, `${name}: rank ${t.rank}: a lane per CPU thread (${t.threads})`, cpu.length);
    check(gpu.length === t.lanes, `${name}: rank ${t.rank}: a lane per GPU stream, copies apart (${t.lanes})`, gpu.length);
    check(cpu.every((c) => groupOf(c.y) === k) && gpu.every((l) => groupOf(l.y) === k),
      `${name}: rank ${t.rank}: its lanes lie inside its group`, { cpu: cpu.map((c) => c.y), gpu: gpu.map((l) => l.y), groups: P.groups });
  });
  const gpuRanks = traces.filter((t) => t.acts).map((t) => t.rank);
  check(gpuRanks.every((r) => P.cpuside.includes('rank ' + r + ' CUDA')),
    `${name}: each GPU rank's busy share is named with its rank`, P.cpuside);
  const acts = traces.reduce((s, t) => s + t.acts, 0);
  check(P.N === acts, `${name}: every GPU activity of every rank in the page (${acts})`, P.N);
  // alignment: each step where its trace puts it, from the job's first time (the traces' clock)
  const origin = Math.min(...traces.map((t) => t.t0));
  const wantSteps = [], gotSteps = P.steps.map((s) => [s[3], s[0], s[1]]);
  for (const t of traces) for (const [n, ts] of t.steps) wantSteps.push([t.rank, n, Math.round((ts - origin) * 1000)]);
  const key = (a) => a.slice().sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const ws = key(wantSteps), gs = key(gotSteps);
  check(ws.length > 0 && ws.length === gs.length && ws.every((w, i) => w[0] === gs[i][0] && w[1] === gs[i][1] && Math.abs(w[2] - gs[i][2]) <= 1),
    `${name}: every rank's ${ws.length} steps at their trace times on one axis (to the ns)`, { want: ws.slice(0, 4), got: gs.slice(0, 4) });

  // the per-rank table: the report's figures
  const f1 = (x) => x.toFixed(1) + '%';
  check(P.table.length === job.ranks.length, `${name}: the table has a row per rank (${job.ranks.length})`, P.table.length);
  job.ranks.forEach((r, i) => {
    const c = P.table[i] ? P.table[i].cells : [];
    check(c[0] === String(r.rank) && c[1] === String(r.steps_count) && c[4] === f1(r.idle_pct) && c[5] === f1(r.compute_pct) &&
      c[6] === f1(r.non_compute_pct) && c[7] === f1(r.overlap_pct),
      `${name}: rank ${r.rank}'s row: steps, idle, compute, non-compute, overlap as report --json`, { row: c, json: r });
  });
  const strag = new Set(job.stragglers.map((s) => String(s.rank)));
  check(P.table.every((row) => (row.cls === 'straggler') === strag.has(row.cells[0])),
    `${name}: the report's stragglers' rows marked (${[...strag].join(',') || 'none'})`, P.table.map((r) => r.cls));
  const skews = ((job.collectives && job.collectives.types) || []).filter((t) => t.late_wait_ns > 0);
  if (skews.length) {
    const w = skews.reduce((a, b) => (b.late_wait_ns > a.late_wait_ns ? b : a));
    const timed = job.collectives.on === 'annotations'; // gloo: no sizes, the skew of the ranks' times
    const text = 'collective skew: ' + w.type + ' ' + (timed ? w.time_skew_pct : w.busbw_skew_pct).toFixed(1) + '%' +
      (timed ? ' of time (no sizes in the trace)' : '') + ', rank ' + w.late_rank + ' late, the others wait ' +
      (w.late_wait_ns / 1e6).toFixed(1) + ' ms';
    check(P.line.includes(text), `${name}: the first line names the collective skew of report --json: ${text}`, P.line);
  } else {
    check(!P.line.includes('collective skew'), `${name}: no collective skew named (none in report --json)`, P.line);
  }
  if (want) {
    check(P.line.includes('Bound by: rank ' + want.rank + ', ' + want.cause),
      `${name}: the first line names the slow rank ${want.rank} and its cause (${want.cause})`, P.line);
    const row = P.table.find((r) => r.cells[0] === String(want.rank));
    check(row && row.cls === 'straggler' && row.cells[9].startsWith(want.cause), `${name}: rank ${want.rank}'s row says ${want.cause}`, row);
  } else {
    check(/^\d+ ranks \u00b7 Bound by: /.test(P.line), `${name}: the first line says what bounds the job`, P.line);
  }

  // screenshot: each rank has drawn rows (pixels other than the row's background)
  const shot = path.join(outDir, name + '.png');
  await page.evaluate(() => { document.getElementById('tlwrap').style.height = ''; });
  const perGroup = [];
  for (let k = 0; k < P.groups.length; k++) {
    await page.evaluate((y) => { const w = document.getElementById('tlwrap'); w.scrollTop = y; w.dispatchEvent(new Event('scroll')); opscope.redraw(); },
      P.groups[k].y - P.L.AXIS_H);
    const top = await page.evaluate(() => document.getElementById('tlwrap').scrollTop);
    await page.locator('#timeline').screenshot({ path: shot });
    const img = decodePng(fs.readFileSync(shot));
    const px = (x, y) => { const o = (y * img.width + x) * 4; return (img.rgba[o] << 16) | (img.rgba[o + 1] << 8) | img.rgba[o + 2]; };
    const end = k + 1 < P.groups.length ? P.groups[k + 1].y : Infinity;
    let drawn = 0;
    for (const r of P.rows.filter((q) => q.y >= P.groups[k].y && q.y < end)) {
      const y = Math.round(r.y - top + P.L.ROW_H / 2);
      if (y <= P.L.AXIS_H || y >= img.height) continue;
      const colours = new Set();
      for (let x = P.L.LABEL_W + 1; x < img.width; x += 2) colours.add(px(x, y));
      if (colours.size > 1) drawn++;
    }
    perGroup.push(drawn);
  }
  check(perGroup.every((d) => d > 0), `${name}: every rank's CPU rows are drawn (rows with pixels per rank: ${perGroup.join(', ')})`, perGroup);
  // a rank's row scrolls the timeline to its group
  const last = P.table.length - 1;
  await page.evaluate(() => { const w = document.getElementById('tlwrap'); w.scrollTop = 0; });
  await page.locator('#jobbody tr').nth(last).click();
  const sc = await page.evaluate(() => { const w = document.getElementById('tlwrap'); return { top: w.scrollTop, max: w.scrollHeight - w.clientHeight }; });
  const wantTop = Math.min(P.groups[last].y - P.L.AXIS_H, sc.max);
  check(Math.abs(sc.top - wantTop) <= 1, `${name}: clicking rank ${job.ranks[last].rank}'s row scrolls to its lanes`, { sc, wantTop });
  check(errors.length === 0, `${name}: no page errors`, errors);
  check(requests.length === 0, `${name}: no request but file://`, requests);
  await page.close();
}

// --ddp TRACE: a job made here of TRACE as rank 0 and a copy as rank 1 whose collective kernels
// (args "Collective name") last twice as long, so its collectives are skewed (as tests/job/check_coll.py)
function ddpJob(trace) {
  const dir = path.join(outDir, 'ddp_pair');
  fs.mkdirSync(dir, { recursive: true });
  const doc = JSON.parse(zlib.gunzipSync(fs.readFileSync(trace)).toString('utf8'));
  doc.distributedInfo = Object.assign({}, doc.distributedInfo, { rank: 0 });
  fs.writeFileSync(path.join(dir, 'rank-0.json'), JSON.stringify(doc));
  doc.distributedInfo.rank = 1;
  for (const e of doc.traceEvents) if (e && e.cat === 'kernel' && e.args && 'Collective name' in e.args) e.dur *= 2;
  fs.writeFileSync(path.join(dir, 'rank-1.json'), JSON.stringify(doc));
  return dir;
}

(async () => {
  const { context, close } = await launch();
  const ddp = jobs.indexOf('--ddp');
  if (ddp >= 0) jobs.splice(ddp, 2, ddpJob(jobs[ddp + 1]));
  for (const arg of jobs) {
    const [dir, rank, cause] = arg.split(':');
    await checkJob(context, dir, rank !== undefined ? { rank: Number(rank), cause } : null);
  }
  await close();
  console.log(failures ? failures + ' check(s) failed' : 'job view: all checks passed');
  process.exit(failures ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
