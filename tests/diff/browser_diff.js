// browser_diff.js - opens `opscope diff --html` pages in headless Chromium (tests/viewer's
// launcher: no network) and checks them: no script error or CSP violation, both timelines
// drawn with the records the page holds, the table has one row per group of the embedded
// diff, a row click highlights and the search box filters. Optional: --shot PNG.
// usage: node browser_diff.js PAGE EXPECTED_GROUPS EXPECTED_BASE_RECORDS EXPECTED_NEW_RECORDS [--shot PNG]
'use strict';
const path = require('path');
const { launch } = require(path.join(__dirname, '..', 'viewer', 'browser.js'));

async function main() {
  const [page, groups, nb, nn] = process.argv.slice(2, 6);
  const si = process.argv.indexOf('--shot');
  const shot = si > 0 ? process.argv[si + 1] : null;
  const { context, close } = await launch();
  const failures = [];
  const check = (ok, what) => { console.log((ok ? 'ok    ' : 'FAIL  ') + what); if (!ok) failures.push(what); };
  try {
    const p = await context.newPage();
    await p.setViewportSize({ width: 1600, height: 1100 });
    const errors = [];
    p.on('pageerror', (e) => errors.push(String(e)));
    p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await p.goto('file://' + path.resolve(page));
    await p.waitForFunction(() => window.opscopeDiff && window.opscopeDiff.drawCount() > 0, null, { timeout: 60000 });
    const st = await p.evaluate(() => ({ kept: window.opscopeDiff.kept, groups: window.opscopeDiff.groups,
      rows: window.opscopeDiff.rowsShown(), title: document.title,
      drawn: performance.getEntriesByName('opscope-first-draw').length }));
    check(errors.length === 0, 'no script errors or CSP violations (' + errors.join(' | ') + ')');
    check(st.drawn === 1, 'first draw marked');
    check(st.groups === Number(groups), 'groups in the page: ' + st.groups + ' == ' + groups);
    check(st.rows === Number(groups), 'table rows: ' + st.rows + ' == ' + groups);
    check(st.kept[0] === Number(nb) && st.kept[1] === Number(nn),
      'records drawn: ' + st.kept.join(', ') + ' == ' + nb + ', ' + nn);
    // both canvases drew something other than the background
    const painted = await p.evaluate(() => ['tlbase', 'tlnew'].map((id) => {
      const c = document.getElementById(id), g = c.getContext('2d');
      const d = g.getImageData(200, 30, c.width - 200, Math.min(c.height - 30, 40)).data;
      const bg = [d[0], d[1], d[2]];
      let diff = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] !== bg[0] || d[i + 1] !== bg[1] || d[i + 2] !== bg[2]) diff++;
      return diff;
    }));
    check(painted[0] > 50 && painted[1] > 50, 'both timelines painted (' + painted.join(', ') + ' px)');
    await p.click('#groupsbody tr:first-child');
    const sel = await p.evaluate(() => document.querySelectorAll('#groupsbody tr.sel').length);
    check(sel === 1, 'a row click selects the group');
    await p.fill('#search', 'zzzz-no-such-op');
    const none = await p.evaluate(() => window.opscopeDiff.rowsShown());
    check(none === 0, 'the search box filters the table (' + none + ' rows)');
    await p.fill('#search', '');
    if (shot) await p.screenshot({ path: shot, fullPage: false });
  } finally {
    await close();
  }
  if (failures.length) { console.log(failures.length + ' failed'); process.exit(1); }
}
main().catch((e) => { console.error(e); process.exit(1); });
