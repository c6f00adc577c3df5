// requests.js OPSCOPE PROFILE.json.gz OUTDIR
// A real llama-server run (tests/viewer/data/server-requests.json.gz: 4 clients on 4 slots,
// after llama.cpp's two warm-up runs) in Debian's headless chromium through `opscope view`:
// - the page has a requests row per slot under the phase and compute bands, one bar per
//   request with the request number, seq, prompt and generated tokens, start, end of its
//   prompt phase and end (ns after the first record, exact) that this test computes from the
//   profile's capture.decodes alone: first call's start, end of the call that gave the
//   sequence's first output, last call's end;
// - the 4 client requests are requests, the rest (the warm-ups: nothing generated, before
//   the first client) are marked warm-up;
// - a request's prompt part is painted in the prefill band's colour, its generation in the
//   decode band's, and hovering a request names it with its tokens;
// - every lane still starts below the bands; screenshot OUTDIR/requests.png.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { execFileSync } = require('child_process');
const { launch } = require('./browser');

const [opscope, gz, outDir] = process.argv.slice(2);
fs.mkdirSync(outDir, { recursive: true });
const json = path.join(outDir, 'server.json');
fs.writeFileSync(json, zlib.gunzipSync(fs.readFileSync(gz)));
const html = path.join(outDir, 'view.html');
execFileSync(opscope, ['view', json, '-o', html, '-q']);

// the expected requests, from the calls alone
const prof = JSON.parse(fs.readFileSync(json, 'utf8'));
const t0 = prof.records.reduce((m, r) => Math.min(m, r.start_ns), Infinity);
const want = new Map();
for (const d of prof.capture.decodes) {
  if (d.ret !== 0) continue;
  for (const q of d.seqs) {
    let r = want.get(q.request);
    if (!r) want.set(q.request, r = { request: q.request, seq: q.seq, start: d.start_ns - t0, promptEnd: null, end: 0, nPrompt: 0, nGen: 0 });
    r.end = Math.max(r.end, d.end_ns - t0);
    r.nPrompt += q.prompt;
    r.nGen += q.tokens - q.prompt;
    if (r.promptEnd === null && q.outputs > 0) r.promptEnd = d.end_ns - t0;
  }
}
const W = [...want.values()].sort((a, b) => a.request - b.request);
for (const r of W) if (r.promptEnd === null) r.promptEnd = r.end;
const CLIENTS = 4;
const firstClient = Math.min(...W.filter((r) => r.nGen > 0).map((r) => r.start));

let failures = 0;
function check(cond, what, detail) {
  if (cond) console.log('ok   ' + what);
  else { failures++; console.log('FAIL ' + what + (detail !== undefined ? ': ' + JSON.stringify(detail) : '')); }
}
check(W.filter((r) => r.nGen > 0).length === CLIENTS && W.some((r) => r.nGen === 0 && r.end <= firstClient),
  'the fixture: ' + CLIENTS + ' client requests that generate, warm-ups before them (' + W.length + ' numbered)');

(async () => {
  const { context, close } = await launch();
  const errors = [];
  try {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1600, height: 1000 });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto('file://' + html);
    await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 60000 });
    const R = await page.evaluate(() => window.opscope.requests());
    const bad = [];
    if (R.length !== W.length) bad.push(['count', R.length, W.length]);
    W.forEach((w, k) => { const g = R[k] || {};
      if (g.request !== w.request || g.seq !== w.seq || g.start !== w.start || g.promptEnd !== w.promptEnd || g.end !== w.end ||
        g.nPrompt !== w.nPrompt || g.nGen !== w.nGen) bad.push([k, g, w]); });
    check(!bad.length, 'a bar per request (' + W.length + ') with its number, seq, tokens and spans (prompt end included) from capture.decodes', bad);
    const clients = R.filter((r) => !r.warmup), warm = R.filter((r) => r.warmup);
    check(clients.length === CLIENTS && clients.every((r) => r.nGen > 0) && warm.length === W.length - CLIENTS &&
      warm.every((r) => r.nGen === 0 && r.end <= firstClient && /^warm-up /.test(r.label)),
      'the ' + CLIENTS + ' client requests are requests, the ' + warm.length + ' others warm-ups, labelled so',
      R.map((r) => [r.request, r.warmup, r.label]));
    const labels = clients.every((r) => r.label === 'request ' + r.request + ' \u00b7 ' + r.nPrompt + ' prompt + ' + r.nGen + ' generated');
    check(labels, 'each request labelled with its number and tokens', clients.map((r) => r.label));
    const slots = new Set(clients.map((r) => r.seq));
    check(new Set(clients.map((r) => r.y)).size === slots.size, 'a row per slot (' + slots.size + ' slots)');

    // colours: a request's prompt as the prefill band, its generation as the decode band
    const B = await page.evaluate(() => window.opscope.bands());
    const px = await page.evaluate(([reqs, phases]) => {
      const c = document.getElementById('timeline'), g = c.getContext('2d');
      // the commonest colour of row Y between X0 and X1 (a label's glyphs are the minority)
      const at = (x0, x1, y) => {
        const a = Math.round(x0) + 1, w = Math.max(1, Math.round(x1) - a - 2);
        const d = g.getImageData(a, Math.round(y), w, 1).data, n = new Map();
        for (let i = 0; i < d.length; i += 4) { const k = d[i] + ',' + d[i + 1] + ',' + d[i + 2]; n.set(k, (n.get(k) || 0) + 1); }
        return [...n.entries()].sort((p, q) => q[1] - p[1])[0][0];
      };
      const band = (ph) => { const b = phases.find((p) => p.phase === ph && p.x1 - p.x0 >= 6); return b ? at(b.x0, b.x1, b.y) : null; };
      return { prefill: band('prefill'), decode: band('decode'),
        reqs: reqs.map((r) => ({ prompt: r.xp - r.x0 >= 6 ? at(r.x0, r.xp, r.y) : null, gen: r.x1 - r.xp >= 6 ? at(r.xp, r.x1, r.y) : null })) };
    }, [clients, B.phases]);
    const painted = px.reqs.filter((p) => p.prompt && p.gen);
    check(px.prefill && px.decode && painted.length >= 2 && painted.every((p) => p.prompt === px.prefill && p.gen === px.decode),
      'requests painted: prompt in the prefill colour, generation in the decode colour (' + painted.length + ' checked)', px);

    // hovering the longest client request names it
    const long = clients.reduce((a, b) => (b.x1 - b.x0 > a.x1 - a.x0 ? b : a));
    const box = await page.evaluate(() => document.getElementById('timeline').getBoundingClientRect().toJSON());
    await page.mouse.move(box.x + (long.xp + long.x1) / 2, box.y + long.y);
    const tip = await page.evaluate(() => { const t = document.getElementById('tip'); return t.hidden ? '' : t.textContent; });
    check(tip.startsWith('request ' + long.request) && tip.includes(long.nPrompt + ' tokens') && tip.includes(long.nGen + ' tokens'),
      'hovering request ' + long.request + ' names it with its tokens', tip);
    await page.mouse.move(0, 0);
    const VL = await page.evaluate(() => ({ top: opscope.layout.TOP, y: opscope.layout.laneY }));
    const lowest = Math.max(...R.map((r) => r.y));
    check(VL.y[0] >= VL.top && lowest < VL.top, 'the lanes start below the requests\u2019 rows', VL);
    await page.screenshot({ path: path.join(outDir, 'requests.png') });
    check(!errors.length, 'no page errors', errors);
  } finally {
    await close();
  }
  console.log('screenshot: ' + path.join(outDir, 'requests.png'));
  console.log(failures ? `FAILED: ${failures}` : 'passed');
  process.exit(failures ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
