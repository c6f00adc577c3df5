// windows.js OPSCOPE OUTDIR
// A profile recorded in windows (hand-made: capture.windowed, capture.windows, capture.marks as
// docs/formats.md says) in Debian's headless chromium through `opscope view`:
// - the page draws each window as a shaded span on the axis, the time not recorded (before
//   the first window from the capture's start, between windows, after the last to the run's
//   end) greyed and said, each mark as a line with its text; the counts the last draw drew
//   and the spans (ns after the first record) equal those this test computes from the profile;
// - zoomed onto the second window alone, one window, no gap, and only its mark are drawn;
// - the summary line says the windows and what was recorded; a profile recorded whole with
//   marks has no window and no gap, its marks drawn; screenshot OUTDIR/windows.png.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { launch, openViewer, frames } = require('./browser');

const [opscope, outDir] = process.argv.slice(2);
fs.mkdirSync(outDir, { recursive: true });

const S = 1e9;
// capture starts at 100 s; windows [103 s, 104 s) and [110 s, 112 s); death at 120 s
const START = 100 * S, WINDOWS = [[103 * S, 104 * S], [110 * S, 112 * S]], DIED = 120 * S;
const MARKS = [[103.5 * S, 'slow request begins'], [111 * S, 'cache cleared <b>x</b>'], [111.0001 * S, 'too close to label']];
function profile(windowed) {
  const records = [];
  const spans = windowed ? WINDOWS : [[101 * S, 119 * S]];
  let g = 0;
  for (const [s, e] of spans)
    for (let t = s + 0.1 * S; t < e - 0.1 * S; t += 0.1 * S, g++)
      records.push({ type: 0, name: 'MUL_MAT', backend_id: 0, split_id: 0, graph_id: g, start_ns: t, duration_ns: 20e6,
        bytes: 1024, extra: null, n_src: 1, ne_src: [[256, 1, 1, 1]], type_src: [0] });
  const capture = { program: 'llama-server', pid: 4242, start_ns: START, end: { how: 'killed', signal: 'SIGKILL', at_ns: 119 * S, died_ns: DIED },
    marks: MARKS.map(([ts, text]) => ({ ts_ns: ts, text })) };
  if (windowed) Object.assign(capture, { windowed: true, windows: WINDOWS.map(([s, e]) => ({ start_ns: s, end_ns: e })) });
  return { profiler: 'ggml', version: 3, backends: [{ id: 0, name: 'CPU', device: 'cpu', device_type: 0 }], records, capture };
}
function page(name, windowed) {
  const prof = profile(windowed);
  const json = path.join(outDir, name + '.json'), html = path.join(outDir, name + '.html');
  fs.writeFileSync(json, JSON.stringify(prof));
  execFileSync(opscope, ['view', json, '-o', html, '-q']);
  return { html, t0: Math.min(...prof.records.map((r) => r.start_ns)) };
}

let failures = 0;
function check(cond, what, detail) {
  if (cond) console.log('ok   ' + what);
  else { failures++; console.log('FAIL ' + what + (detail !== undefined ? ': ' + JSON.stringify(detail) : '')); }
}

const errors = [];

(async () => {
  const { context, close } = await launch();
  try {
    // the windowed profile, the whole run in view
    const w = page('windowed', true);
    let pg = await openViewer(context, w.html, errors);
    await pg.evaluate(([a, b]) => { window.opscope.setView(a, b); }, [START - w.t0, DIED - w.t0]);
    await frames(pg);
    let V = await pg.evaluate(() => window.opscope.windows());
    const wantWin = WINDOWS.map(([s, e]) => ({ start: s - w.t0, end: e - w.t0, open: false }));
    const wantGaps = [[START, WINDOWS[0][0]], [WINDOWS[0][1], WINDOWS[1][0]], [WINDOWS[1][1], DIED]]
      .map(([s, e]) => ({ start: s - w.t0, end: e - w.t0 }));
    check(V.windowed && JSON.stringify(V.windows.map(({ start, end, open }) => ({ start, end, open }))) === JSON.stringify(wantWin),
      'two windows at the profile\'s times (ns after t0)', V.windows);
    check(JSON.stringify(V.gaps) === JSON.stringify(wantGaps), 'three gaps not recorded: before, between, after', V.gaps);
    check(V.marks.length === 3 && V.marks.every((m, i) => m.ts === MARKS[i][0] - w.t0 && m.text === MARKS[i][1]),
      'three marks with their times and texts', V.marks);
    check(V.drawn.windows === 2 && V.drawn.gaps === 3 && V.drawn.marks === 3,
      'drawn: 2 windows, 3 gaps, 3 mark lines', V.drawn);
    check(V.drawn.gapLabels === 3 && V.drawn.markLabels === 2, 'each gap says "not recorded"; the mark 0.1 ms after another has no label', V.drawn);
    const x = V.windows.map((v) => [v.x0, v.x1]);
    check(x[0][0] < x[0][1] && x[0][1] < x[1][0] && x[1][0] < x[1][1], 'the windows in time order on the axis', x);
    const summary = await pg.evaluate(() => document.getElementById('summary').textContent);
    check(summary.includes('recorded in 2 windows (3.000 s of 20.000 s): graph computes outside them are not in this profile') &&
      summary.includes('3 marks'), 'the summary says the windows and what was recorded', summary);
    // hovering the axis: a mark, a window, the time between them (from the capture's start)
    const axisY = 8, mid = (v) => v.x0 + (v.x1 - v.x0) / 4; // window 2 has a mark in its middle
    const tips = await pg.evaluate(([xm, xw, xg, y]) => [xm, xw, xg].map((xx) => window.opscope.tipAt(xx, y)),
      [V.marks[0].x, mid(V.windows[1]), (V.windows[0].x1 + V.windows[1].x0) / 2, axisY]);
    const fromStart = (ns) => ((ns - START) / 1e9).toFixed(3) + ' s';
    check(tips[0].includes('mark 1: ' + MARKS[0][1]) && tips[0].includes('At: ' + fromStart(MARKS[0][0]) + ' from the capture\u2019s start'),
      'hovering mark 1 names it and its time from the capture\'s start', tips[0]);
    check(tips[1].includes('window 2 of 2') && tips[1].includes('Recorded: ' + ((WINDOWS[1][1] - WINDOWS[1][0]) / 1e9).toFixed(3) + ' s  (' +
      fromStart(WINDOWS[1][0]) + ' from the capture\u2019s start \u2013 ' + fromStart(WINDOWS[1][1]) + ')'),
      'hovering window 2 gives its span', tips[1]);
    check(tips[2].startsWith('not recorded') && tips[2].includes(((WINDOWS[1][0] - WINDOWS[0][1]) / 1e9).toFixed(3) + ' s  (' + fromStart(WINDOWS[0][1])),
      'hovering the gap between them says it was not recorded and how long', tips[2]);
    await pg.screenshot({ path: path.join(outDir, 'windows.png') });
    // zoomed onto the second window: one window, no gap, its two marks
    await pg.evaluate(([a, b]) => { window.opscope.setView(a, b); }, [WINDOWS[1][0] - w.t0 + 0.2 * S, WINDOWS[1][1] - w.t0 - 0.2 * S]);
    await frames(pg);
    V = await pg.evaluate(() => window.opscope.windows());
    check(V.drawn.windows === 1 && V.drawn.gaps === 0 && V.drawn.marks === 2, 'zoomed into window 2: 1 window, 0 gaps, 2 marks', V.drawn);
    await pg.close();

    // recorded whole, with marks: no window, no gap
    const p = page('whole', false);
    pg = await openViewer(context, p.html, errors);
    V = await pg.evaluate(() => window.opscope.windows());
    check(!V.windowed && V.windows.length === 0 && V.gaps.length === 0 && V.drawn.gaps === 0 && V.drawn.windows === 0,
      'a profile recorded whole: no window, no gap', V);
    check(V.marks.length === 3 && V.drawn.marks === 3, 'its 3 marks drawn', V.drawn);
    const s2 = await pg.evaluate(() => document.getElementById('summary').textContent);
    check(!s2.includes('recorded in') && s2.includes('3 marks'), 'its summary names the marks, no window', s2);
    await pg.close();
    check(!errors.length, 'no page errors', errors);
  } finally {
    await close();
  }
  console.log(failures ? failures + ' failed' : 'all passed');
  process.exit(failures ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
