// rpc_time.js OPSCOPE MERGED.json.gz OUTDIR
// `opscope view` of a real merged RPC profile (tests/merge/data) in Debian's headless
// chromium: %Time counts each instant once per machine (docs/metrics.md, "Merged RPC time").
// Computed here from the records: the union of the server records' intervals, the client RPC
// records' overlap with it; the page's op rows show (total - covered) / (all - covered), sum
// to 100%, and its summary names the covered time.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { execFileSync } = require('child_process');
const { launch } = require('./browser');

const [opscope, merged, outDir] = process.argv.slice(2);
fs.mkdirSync(outDir, { recursive: true });
const page_ = path.join(outDir, 'merged.html');
const input = path.join(outDir, 'merged.json');
fs.writeFileSync(input, zlib.gunzipSync(fs.readFileSync(merged)));
execFileSync(opscope, ['view', input, '-o', page_, '-q']);

let failures = 0;
function check(cond, what, detail) {
  if (cond) console.log('ok   ' + what);
  else { failures++; console.log('FAIL ' + what + (detail !== undefined ? ': ' + JSON.stringify(detail) : '')); }
}

const doc = JSON.parse(fs.readFileSync(input, 'utf8'));
const be = new Map(doc.backends.map((b) => [b.id, b]));
const client = doc.backends.find((b) => b.name.startsWith('RPC')).process;
const union = [];
for (const [a, e] of doc.records.filter((r) => be.get(r.backend_id).process !== client)
  .map((r) => [r.start_ns, r.start_ns + r.duration_ns]).sort((x, y) => x[0] - y[0])) {
  const u = union[union.length - 1];
  if (u && a <= u[1]) u[1] = Math.max(u[1], e); else union.push([a, e]);
}
const byOp = new Map(); // op label as the page's rows: name(sub_op)
let all = 0, covered = 0;
for (const r of doc.records) {
  const b = be.get(r.backend_id);
  const a = r.start_ns, e = a + r.duration_ns;
  let c = 0;
  if (b.process === client && b.name.startsWith('RPC'))
    for (const [x, y] of union) if (x < e && y > a) c += Math.min(e, y) - Math.max(a, x);
  const k = r.name + (r.sub_op_name ? '(' + r.sub_op_name + ')' : '');
  const o = byOp.get(k) || { t: 0, c: 0 };
  o.t += r.duration_ns; o.c += c; byOp.set(k, o);
  all += r.duration_ns; covered += c;
}
check(covered > 0, `the client's RPC records overlap the server's (${(covered / 1e6).toFixed(3)} ms of ${(all / 1e6).toFixed(3)} ms)`);

(async () => {
  const { context, close } = await launch();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto('file://' + page_);
  await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 30000 });
  const got = await page.evaluate(() => ({
    summary: document.getElementById('summary').textContent,
    rows: [...document.querySelectorAll('#statsbody tr.l0')].map((tr) => [...tr.children].map((td) => td.textContent)),
  }));
  const rows = got.rows.map(([label, pct]) => [label.replace(/^\W+/, '').replace(/ {2}\(copy\)$/, ''), parseFloat(pct)]);
  const bad = rows.filter(([k, p]) => !byOp.has(k) ||
    Math.abs(p - 100 * (byOp.get(k).t - byOp.get(k).c) / (all - covered)) > 0.006)
    .map(([k, p]) => [k, p, byOp.has(k) ? 100 * (byOp.get(k).t - byOp.get(k).c) / (all - covered) : null]);
  check(rows.length === byOp.size && !bad.length, `every op row's %Time is (total - covered) / (all - covered) (${rows.length} rows)`, bad);
  const sum = rows.reduce((s, r) => s + r[1], 0);
  check(Math.abs(sum - 100) < 0.01 * rows.length, `the rows' %Time sum to 100 (${sum.toFixed(2)})`);
  check(/RPC wait: .* waiting on RPC server \(covered by server records\)/.test(got.summary), 'the summary names the covered time', got.summary);
  check(!errors.length, 'no page errors', errors);
  await close();
  console.log(failures ? `FAILED: ${failures}` : 'passed');
  process.exit(failures ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
