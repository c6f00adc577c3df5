// browser_test.js --fixture MAKE_FIXTURE --out DIR
// Opens a viewer page written by make_fixture in Debian's headless chromium (playwright-core)
// from file://, with every network request refused, and checks what a user would see.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { launch } = require('./browser');
const { decodePng } = require('./png');

const args = process.argv.slice(2);
const opt = (k) => { const i = args.indexOf(k); return i >= 0 ? args[i + 1] : undefined; };
const fixture = opt('--fixture'), outDir = path.resolve(opt('--out') || 'viewer-browser');
fs.mkdirSync(outDir, { recursive: true });
const htmlPath = path.join(outDir, 'fixture.html');
execFileSync(fixture, [htmlPath], { stdio: 'inherit' });
const INJ = '</script><img src=x onerror=alert(1)>';

let failures = 0, passes = 0;
function check(cond, what, detail) {
  if (cond) { passes++; console.log('ok   ' + what); }
  else { failures++; console.log('FAIL ' + what + (detail !== undefined ? ': ' + JSON.stringify(detail) : '')); }
}

// Pixels of a screenshot region that differ from that region's most common colour.
function region(img, x0, y0, x1, y1) {
  const counts = new Map();
  const key = (o) => (img.rgba[o] << 16) | (img.rgba[o + 1] << 8) | img.rgba[o + 2];
  for (let y = Math.max(0, y0); y < Math.min(img.height, y1); y++)
    for (let x = Math.max(0, x0); x < Math.min(img.width, x1); x++) {
      const k = key((y * img.width + x) * 4);
      counts.set(k, (counts.get(k) || 0) + 1);
    }
  let bg = 0, bgN = -1, total = 0;
  for (const [k, n] of counts) { total += n; if (n > bgN) { bg = k; bgN = n; } }
  return { bg, total, other: total - bgN, colours: counts.size };
}
function pixel(img, x, y) {
  const o = (Math.round(y) * img.width + Math.round(x)) * 4;
  return (img.rgba[o] << 16) | (img.rgba[o + 1] << 8) | img.rgba[o + 2];
}

(async () => {
  const { context, close } = await launch();
  const page = await context.newPage();
  const errors = [], dialogs = [], requests = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  page.on('request', (r) => { if (!r.url().startsWith('file:')) requests.push(r.url()); });
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto('file://' + htmlPath);
  await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 30000 });
  // Splits collapsed by default: Vulkan0's two splits share one lane, whose
  // sub-rows hold split 1's ADDs (they overlap split 0's MUL_MATs) and the ADD that overlaps
  // them; copies and CPU keep a lane each. A record still names its split in the tooltip.
  const col = await page.evaluate(() => ({ shown: opscope.shownLanes(), labels: opscope.laneLabels().map((l) => l.full),
    layout: opscope.layout, summary: document.getElementById('summary').textContent,
    button: document.getElementById('splits').hidden ? null : document.getElementById('splits').textContent }));
  check(col.shown === 3 && col.labels[0] === 'Vulkan0 \u00b7 2 splits' && col.labels[1] === 'Vulkan0 copies' &&
    col.labels[2] === 'CPU', 'splits collapsed: 3 lanes, one per backend and copies', col);
  check(col.layout.laneH[0] === 3 * col.layout.ROW_H + 6 && / 3 lanes /.test(col.summary) && col.button === 'Expand splits',
    'the collapsed lane stacks what overlaps (3 sub-rows); the summary counts shown lanes; a button expands', col);
  {
    const shotC = path.join(outDir, 'collapsed.png');
    await page.locator('#timeline').screenshot({ path: shotC });
    const imgC = decodePng(fs.readFileSync(shotC));
    const LC = col.layout;
    for (let k = 0; k < 3; k++) {
      const r = region(imgC, LC.LABEL_W + 1, LC.laneY[0] + 4 + k * LC.ROW_H, imgC.width, LC.laneY[0] + 2 + (k + 1) * LC.ROW_H);
      check(r.other > 10, 'collapsed lane: sub-row ' + k + ' has drawn records', r);
    }
    const tlBoxC = await page.locator('#timeline').boundingBox();
    const box = await page.evaluate(() => opscope.recordBox(opscope.recordAt('ADD')));
    check(box.y > LC.laneY[0] && box.y < LC.laneY[0] + LC.laneH[0], 'an ADD of split 1 sits in the collapsed lane', box);
    await page.mouse.move(tlBoxC.x + (box.x0 + box.x1) / 2, tlBoxC.y + box.y);
    await page.waitForTimeout(50);
    const tt = await page.evaluate(() => document.getElementById('tip').textContent);
    check(/^ADD/.test(tt) && /Lane: Vulkan0 \u00b7 split 1/.test(tt), 'hover in a collapsed lane finds the record and names its split', tt);
  }
  await page.click('#splits');
  await page.waitForTimeout(50);
  const exp = await page.evaluate(() => ({ shown: opscope.shownLanes(), button: document.getElementById('splits').textContent }));
  check(exp.shown === 4 && exp.button === 'Collapse splits', 'the button shows a lane per split', exp);
  const info = await page.evaluate(() => ({ N: opscope.N, lanes: opscope.lanes, rows: opscope.rows,
    layout: opscope.layout, view: opscope.view(), title: document.title }));
  check(info.N === 83, 'all 83 records decoded', info.N);
  // Vulkan0 ops split 0, ops split 1 (2 rows: one overlap), copies split 0; CPU ops split 0.
  check(info.lanes === 4 && info.rows === 5, '4 lanes, 5 rows (overlap stacked)', info);
  check(info.title === 'opscope: fixture <b>profile</b>', 'title is the source name as text', info.title);

  // Lanes are drawn: each lane's plot area has pixels besides its background.
  const tlBox = await page.locator('#timeline').boundingBox();
  const shot1 = path.join(outDir, 'timeline.png');
  await page.locator('#timeline').screenshot({ path: shot1 });
  let img = decodePng(fs.readFileSync(shot1));
  const L = info.layout;
  for (let l = 0; l < info.lanes; l++) {
    const r = region(img, L.LABEL_W + 1, L.laneY[l] + 2, img.width, L.laneY[l] + L.laneH[l] - 2);
    check(r.other > 200, 'lane ' + l + ' has drawn records', r);
  }
  // Real timestamps: the 200 us gap in Vulkan0 split 0 (records end at 198 us, resume at
  // 400 us after the first record) is empty, the time just before it is not.
  const vx = (t) => L.LABEL_W + (t - info.view.t0) * (img.width - L.LABEL_W) / (info.view.t1 - info.view.t0);
  const rowMid = L.laneY[0] + L.laneH[0] / 2;
  const bg0 = region(img, L.LABEL_W + 1, L.laneY[0] + 2, img.width, L.laneY[0] + L.laneH[0] - 2).bg;
  check(pixel(img, vx(300000), rowMid) === bg0, 'gap in the timeline stays empty');
  check(pixel(img, vx(195000), rowMid) !== bg0, 'record before the gap is drawn');
  // The overlapping ADD is drawn in the second row of lane 1.
  const row2 = L.laneY[1] + 3 + L.ROW_H * 1.5;
  check(pixel(img, vx(6500), row2) !== pixel(img, vx(100000), row2), 'overlapping record drawn in its own row');

  // Hover shows the tooltip with the record's name.
  async function hover(name) {
    const box = await page.evaluate((n) => opscope.recordBox(opscope.recordAt(n)), name);
    await page.mouse.move(tlBox.x + (box.x0 + box.x1) / 2, tlBox.y + box.y);
    await page.waitForTimeout(50);
    return page.evaluate(() => ({ hidden: document.getElementById('tip').hidden,
      name: document.querySelector('#tip .tname') ? document.querySelector('#tip .tname').textContent : null,
      text: document.getElementById('tip').textContent }));
  }
  let t = await hover('SOFT_MAX');
  check(!t.hidden && t.name === 'SOFT_MAX', 'hover shows tooltip with the name', t);
  check(/Duration: 40\.00 \u00b5s/.test(t.text) && /Node: 8/.test(t.text) && /Shape: 32x32 f32, 32x7 f32/.test(t.text),
    'tooltip shows duration, node and shape', t.text);
  t = await hover('MUL_MAT');
  check(t.name === 'MUL_MAT' && /Tensor: blk\.0\.ffn_up/.test(t.text) && /Bytes: 112\.00 KiB/.test(t.text),
    'tooltip shows tensor name and bytes', t.text);
  // traffic: f32 [K, M] + f32 [K, 7] read, 112 KiB written; K = 11008 or 4096, M = 4096
  // (172.40 or 64.22 MiB); 2*K*M*7 FLOPs over it: 3.49 FLOP/B either way
  check(/Traffic: (172\.40|64\.22) MiB/.test(t.text) && /3\.49 FLOP\/B/.test(t.text),
    'tooltip shows the traffic and the intensity', t.text);
  t = await hover('copy_D2H');
  check(/Traffic: 1\.00 MiB/.test(t.text) && !/FLOP\/B/.test(t.text), 'a copy\'s traffic is its transfer, no intensity', t.text);

  // A fused kernel names its fused ops; a copy names the ggml call that made it, not a fusion.
  t = await hover('ADD');
  check(t.name === 'ADD  [fused: ADD+RMS_NORM]', 'tooltip names a fused kernel', t.name);
  t = await hover('copy_D2H');
  check(t.name === 'copy_D2H  (via tensor_get_async)', 'tooltip names the call of a copy', t.name);

  // The injection string stays text, in the tooltip and in the table.
  t = await hover(INJ);
  check(t.name === INJ, 'injection string shows as text in the tooltip', t);
  await page.fill('#search', 'onerror');
  await page.waitForTimeout(100);
  const rowsText = await page.$$eval('#statsbody tr.l0', (rs) => rs.map((r) => r.firstChild.textContent));
  check(rowsText.length === 1 && rowsText[0].includes(INJ), 'search filters the table; injection is text', rowsText);
  await page.fill('#search', '');
  await page.evaluate(() => document.activeElement.blur());
  await page.waitForTimeout(50);
  const imgs = await page.evaluate(() => document.getElementsByTagName('img').length);
  check(imgs === 0 && dialogs.length === 0, 'no img element, no dialog', { imgs, dialogs });

  // Zoom: wheel, W key, presets; pan: drag and D key.
  let v = await page.evaluate(() => opscope.view());
  const span0 = v.t1 - v.t0;
  await page.mouse.move(tlBox.x + 600, tlBox.y + 40);
  await page.mouse.wheel(0, -400);
  await page.waitForTimeout(100);
  v = await page.evaluate(() => opscope.view());
  check(v.t1 - v.t0 < span0 * 0.6, 'wheel zooms in', { span0, span: v.t1 - v.t0 });
  const span1 = v.t1 - v.t0;
  await page.keyboard.press('w');
  await page.waitForTimeout(50);
  v = await page.evaluate(() => opscope.view());
  check(v.t1 - v.t0 < span1 * 0.9, 'W zooms in', { span1, span: v.t1 - v.t0 });
  const before = v.t0;
  await page.keyboard.press('d');
  await page.waitForTimeout(50);
  v = await page.evaluate(() => opscope.view());
  check(v.t0 > before, 'D pans right', { before, t0: v.t0 });
  await page.click('#zooms button[data-span="1e4"]');
  await page.waitForTimeout(50);
  v = await page.evaluate(() => opscope.view());
  check(Math.abs(v.t1 - v.t0 - 1e4) < 1, '10 us preset sets the span', v);
  const d0 = v.t0;
  await page.mouse.move(tlBox.x + 700, tlBox.y + 40);
  await page.mouse.down();
  await page.mouse.move(tlBox.x + 500, tlBox.y + 40, { steps: 4 });
  await page.mouse.up();
  await page.waitForTimeout(50);
  v = await page.evaluate(() => opscope.view());
  check(v.t0 > d0, 'drag pans', { d0, t0: v.t0 });
  await page.click('#zooms button[data-span="0"]');
  await page.waitForTimeout(50);
  v = await page.evaluate(() => opscope.view());
  check(Math.abs(v.t1 - v.t0 - span0) < 1, 'All restores the full view', { span0, v });
  // Shift+drag zooms to the dragged range.
  await page.keyboard.down('Shift');
  await page.mouse.move(tlBox.x + 400, tlBox.y + 40);
  await page.mouse.down();
  await page.mouse.move(tlBox.x + 600, tlBox.y + 40, { steps: 4 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await page.waitForTimeout(50);
  v = await page.evaluate(() => opscope.view());
  const wantSpan = span0 * 200 / (tlBox.width - L.LABEL_W);
  check(Math.abs(v.t1 - v.t0 - wantSpan) < wantSpan * 0.02, 'Shift+drag zooms to the range', { wantSpan, v });
  await page.click('#zooms button[data-span="0"]');
  await page.waitForTimeout(50);

  // Click a call: every call of the same op and shape is highlighted.
  const mm = await page.evaluate(() => opscope.recordBox(opscope.recordAt('MUL_MAT')));
  await page.mouse.click(tlBox.x + (mm.x0 + mm.x1) / 2, tlBox.y + mm.y);
  await page.waitForTimeout(100);
  const sel = await page.textContent('#selection');
  check(/MUL_MAT with shape 11008x4096 f32, 11008x7 f32 \u2014 20 calls/.test(sel), 'click highlights the 20 calls of that shape', sel);
  await page.locator('#timeline').screenshot({ path: path.join(outDir, 'timeline-selected.png') });
  img = decodePng(fs.readFileSync(path.join(outDir, 'timeline-selected.png')));
  // Lane 1 holds only ADDs: with MUL_MAT highlighted, none of its pixels may be coloured.
  let saturated = 0;
  for (let y = L.laneY[1] + 2; y < L.laneY[1] + L.laneH[1] - 2; y++)
    for (let x = L.LABEL_W + 1; x < img.width; x++) {
      const p = pixel(img, x, y), r = p >> 16, g = (p >> 8) & 255, b = p & 255;
      if (Math.max(r, g, b) - Math.min(r, g, b) > 40) saturated++;
    }
  check(saturated === 0, 'other ops are dimmed while a shape is highlighted', saturated);
  const histOther = await page.evaluate(() => {
    const c = document.getElementById('hist'), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const bg = [d[0], d[1], d[2]]; let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] !== bg[0] || d[i + 1] !== bg[1] || d[i + 2] !== bg[2]) n++;
    return { n, title: document.getElementById('histtitle').textContent };
  });
  check(histOther.n > 100 && histOther.title.endsWith('MUL_MAT'), 'duration histogram drawn for the op', histOther);
  await page.keyboard.press('Escape');

  // The stats tree expands: Operation > Backend > Shape.
  const head = await page.$$eval('#stats thead th', (h) => h.map((x) => x.textContent));
  const mmRow = await page.$$eval('#statsbody tr.l0', (rs) => rs.map((r) => [...r.children].map((c) => c.textContent))
    .find((c) => c[0].endsWith('MUL_MAT')));
  check(head.includes('Traffic') && head.includes('FLOP/B') && mmRow && / GB\/s$/.test(mmRow[head.indexOf('Traffic')]) &&
    mmRow[head.indexOf('FLOP/B')] === '3.49', 'table shows traffic and FLOP/B per op', { head, mmRow });
  const n1 = await page.$$eval('#statsbody tr.l1', (r) => r.length);
  await page.click('#statsbody tr.l0 >> nth=0');
  const l1 = await page.$$eval('#statsbody tr.l1', (r) => r.map((x) => x.firstChild.textContent));
  check(n1 === 0 && l1.length >= 1, 'clicking an op row shows its backends', { n1, l1 });
  await page.click('#statsbody tr.l1 >> nth=0');
  const l2 = await page.$$eval('#statsbody tr.l2', (r) => r.map((x) => x.firstChild.textContent));
  check(l2.length >= 1, 'clicking a backend row shows its shapes', l2);
  await page.click('#statsbody tr.l2 >> nth=0');
  const sel2 = await page.textContent('#selection');
  check(sel2.includes('every MUL_MAT with shape ' + l2[0]) && sel2.includes('20 calls'), 'clicking a shape row highlights its calls', sel2);
  await page.keyboard.press('Escape');
  const top = await page.$$eval('#statsbody tr.l0 >> nth=0', (r) => Array.from(r[0].children).map((c) => c.textContent));
  check(top[0].startsWith('\u25be') && top[2] === '40', 'top op by time is MUL_MAT with 40 calls', top);

  // Themes: the timeline background changes.
  const bgLight = pixel(img, L.LABEL_W + 2, L.laneY[0] + 2);
  await page.click('#theme');
  await page.waitForTimeout(100);
  await page.locator('#timeline').screenshot({ path: path.join(outDir, 'timeline-dark.png') });
  const imgDark = decodePng(fs.readFileSync(path.join(outDir, 'timeline-dark.png')));
  check(pixel(imgDark, L.LABEL_W + 2, L.laneY[0] + 2) !== bgLight, 'theme switch redraws in the other theme');
  await page.click('#theme');
  await page.waitForTimeout(100);
  await page.screenshot({ path: path.join(outDir, 'page.png'), fullPage: true });

  // Defence in depth: the page's CSP lets only the viewer's own script (by hash) run, so even
  // an inline handler that somehow got into the page would not execute.
  const nErr = errors.length;
  const blocked = await page.evaluate(async () => {
    const i = document.createElement('img');
    i.setAttribute('onerror', 'window.__pwned = 1');
    i.src = 'data:,not-an-image';
    document.body.appendChild(i);
    await new Promise((r) => setTimeout(r, 200));
    i.remove();
    return window.__pwned === undefined;
  });
  check(blocked, 'CSP blocks inline handlers');
  errors.splice(nErr).forEach((e) => { if (!/Content Security Policy/.test(e)) errors.push(e); });

  // Roofline chart. Without peaks: dots only, and the page says so.
  const noPeak = await page.evaluate(() => ({ pts: opscope.roofPoints(), note: document.getElementById('roofnote').textContent }));
  check(noPeak.pts.length === 1 && noPeak.pts[0].op === 'MUL_MAT' && noPeak.pts[0].roof === null &&
    /no peaks given/.test(noPeak.note) && /without FLOPs not drawn/.test(noPeak.note), 'roofline without peaks: MUL_MAT only, no roofs', noPeak);
  // With hand-made peaks (memory 10 GB/s, L2 40 GB/s, FMA 100 GFLOP/s) and a CPU MUL_MAT of
  // 4096x4096 f32 by 4096x7 f32 in 10 ms: 2*4096*4096*7 FLOPs over 4096*4096*4 + 2*4096*7*4
  // bytes = 3.488 FLOP/B, 23.49 GFLOP/s, 6.73 GB/s: memory-bound at 67% of 10 GB/s. The
  // Vulkan0 (llvmpipe) MUL_MATs run 15,507 GB/s in the fixture's made-up times: above the
  // memory roof, so against L2: 3.49 * 40 > 100, compute-bound.
  const roofHtml = path.join(outDir, 'roofline.html');
  execFileSync(fixture, [roofHtml, '--peak'], { stdio: 'inherit' });
  await page.goto('file://' + roofHtml);
  await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 30000 });
  await page.locator('#roofbox').scrollIntoViewIfNeeded();
  const pts = await page.evaluate(() => opscope.roofPoints());
  const cpu = pts.find((g) => g.backend === 1), vk = pts.find((g) => g.backend === 0);
  const aiCpu = 2 * 4096 * 4096 * 7 / (4096 * 4096 * 4 + 2 * 4096 * 7 * 4);
  check(pts.length === 2 && cpu && vk && Math.abs(cpu.ai - aiCpu) < 1e-9 && Math.abs(cpu.gflops - 2 * 4096 * 4096 * 7 / 1e7) < 1e-6,
    'roofline dots at the intensity and rate worked out by hand', pts);
  const pctCpu = 100 * (4096 * 4096 * 4 + 2 * 4096 * 7 * 4) / 1e7 / 10;
  check(cpu && cpu.roof && cpu.roof.bound === 'memory' && cpu.roof.level === 'memory' && Math.abs(cpu.roof.pct - pctCpu) < 1e-9,
    'CPU MUL_MAT memory-bound at 67% of the memory roof', cpu && cpu.roof);
  check(vk && vk.roof && vk.roof.bound === 'compute', 'llvmpipe MUL_MAT judged against the CPU roofs: compute-bound', vk && vk.roof);
  const rbox = await page.locator('#roof').boundingBox();
  await page.locator('#roof').screenshot({ path: path.join(outDir, 'roofline.png') });
  const rimg = decodePng(fs.readFileSync(path.join(outDir, 'roofline.png')));
  const sx = rimg.width / rbox.width;
  const rbg = pixel(rimg, 2, 2);
  check(cpu && pixel(rimg, cpu.x * sx * rbox.width / 560, cpu.y * sx * rbox.height / 300) !== rbg, 'the CPU dot is drawn where it belongs');
  check(region(rimg, 0, 0, rimg.width, rimg.height).other > 2000, 'roofline chart has axes, roofs and dots',
    region(rimg, 0, 0, rimg.width, rimg.height));
  await page.mouse.move(rbox.x + cpu.x * rbox.width / 560, rbox.y + cpu.y * rbox.height / 300);
  await page.waitForTimeout(50);
  const rt = await page.evaluate(() => ({ hidden: document.getElementById('tip').hidden, text: document.getElementById('tip').textContent }));
  check(!rt.hidden && /MUL_MAT  on CPU/.test(rt.text) && /3\.49 FLOP\/B/.test(rt.text) && /memory-bound \(memory\), 67% of the roof/.test(rt.text),
    'hovering a dot tells its bound and % of the roof', rt);
  const rnote = await page.textContent('#roofnote');
  check(/memory 10\.0 GB\/s, L2 40\.0 GB\/s \(dashed\), f32 FMA 100\.0 GFLOP\/s, measured on fixture/.test(rnote), 'roofline note names the peaks', rnote);

  // Legend on kernel names of hundreds of bytes: the short forms (numbered when shared), the
  // full name in the title, and nothing runs under the histogram beside it.
  const leg = await page.evaluate(() => {
    const r = (e) => { const b = e.getBoundingClientRect(); return { l: b.left, r: b.right, t: b.top, b: b.bottom }; };
    const items = [...document.querySelectorAll('#legend .item')].map((e) => ({ text: e.textContent, title: e.title, ...r(e) }));
    return { items, box: r(document.getElementById('legendbox')), hist: r(document.getElementById('histbox')),
      shorts: opscope.shortNames.filter((n) => /vectorized/.test(n)) };
  });
  const longItems = leg.items.filter((i) => /vectorized_elementwise_kernel/.test(i.text));
  check(longItems.length === 2 && longItems.every((i) => i.text.length < 90 && i.title.length > 500) &&
    longItems.some((i) => / #2 /.test(i.text)) && leg.shorts.length === 2 && leg.shorts[0] === leg.shorts[1] &&
    longItems.every((i) => i.text.startsWith(leg.shorts[0])),
    'legend shows the short forms, numbered, full names in the title', { texts: longItems.map((i) => i.text), titles: longItems.map((i) => i.title.length), shorts: leg.shorts });
  const overlaps = (a, b) => a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;
  check(!overlaps(leg.box, leg.hist) && leg.items.every((i) => i.r <= leg.box.r + 0.5 && !overlaps(i, leg.hist)),
    'legend stays in its box, clear of the histogram', { box: leg.box, hist: leg.hist });
  await page.locator('#lower').screenshot({ path: path.join(outDir, 'legend-long-names.png') });
  for (const w of [700, 1000]) { // narrower windows: the layout wraps, never overlaps
    await page.setViewportSize({ width: w, height: 1000 });
    await page.waitForTimeout(50);
    const l2 = await page.evaluate(() => {
      const r = (e) => { const b = e.getBoundingClientRect(); return { l: b.left, r: b.right, t: b.top, b: b.bottom }; };
      return { box: r(document.getElementById('legendbox')), hist: r(document.getElementById('histbox')),
        items: [...document.querySelectorAll('#legend .item')].map(r) };
    });
    check(!overlaps(l2.box, l2.hist) && l2.items.every((i) => i.r <= l2.box.r + 0.5), 'no overlap at width ' + w, l2.box);
  }
  await page.setViewportSize({ width: 1400, height: 1000 });

  // A merged profile whose process names make lane labels longer than the column can hold:
  // the column widens (up to its cap), each label is drawn whole or cut in the middle with an
  // ellipsis (the process's start and the backend and split at the end kept), never cut off
  // silently, and hovering the label shows it whole.
  const mergedHtml = path.join(outDir, 'merged.html');
  execFileSync(fixture, [mergedHtml, '--merged'], { stdio: 'inherit' });
  const LONG_PROC = 'gpu-node-07.rack-b.inference-cluster.example.org/ggml-rpc-server';
  const labelsOk = (labs) => labs.every((x) => {
    if (x.shownW > x.column - 6) return false; // drawn inside the column
    if (x.shown === x.full) return true;
    const parts = x.shown.split('\u2026'); // cut: one ellipsis, the rest the label's own start and end
    return parts.length === 2 && parts[0].length + parts[1].length < x.full.length &&
      x.full.startsWith(parts[0]) && x.full.endsWith(parts[1]);
  });
  for (const w of [1400, 700]) {
    await page.setViewportSize({ width: w, height: 1000 });
    await page.goto('file://' + mergedHtml);
    await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 30000 });
    const labsC = await page.evaluate(() => opscope.laneLabels()); // splits collapsed
    check(labsC.length === 3 && labelsOk(labsC) && labsC[0].shown.endsWith(' \u00b7 Vulkan0 \u00b7 2 splits'),
      'width ' + w + ': collapsed lanes: labels cut in the middle, backend and split count kept', labsC.map((x) => x.shown));
    const labs = await page.evaluate(() => { opscope.setSplits(true); return opscope.laneLabels(); });
    const vk = labs.filter((x) => x.full.startsWith(LONG_PROC + ' \u00b7 Vulkan0'));
    const cpu = labs.find((x) => x.full === 'laptop/llama-cli \u00b7 CPU \u00b7 split 0');
    const box = await page.locator('#timeline').boundingBox();
    const cap = Math.max(180, Math.min(420, Math.floor(box.width * 0.35))); // 35% of the timeline, 180-420 px
    check(labs.length === 4 && vk.length === 3 && cpu && labs.every((x) => x.column === cap),
      'width ' + w + ': merged lanes carry their process; the label column widens to its cap ' + cap, labs);
    check(labelsOk(labs), 'width ' + w + ': every label drawn whole or cut in the middle with an ellipsis, inside the column',
      labs.map((x) => [x.shown, Math.round(x.shownW), x.column]));
    check(vk.every((x) => x.shown !== x.full && x.shown.startsWith('gpu-') &&
      x.shown.endsWith(x.full.slice(x.full.indexOf(' \u00b7 Vulkan0'))) && x.fullW > x.column),
      'width ' + w + ': long labels keep the host start and the whole backend and split', vk.map((x) => x.shown));
    check(cpu && cpu.shown === cpu.full, 'width ' + w + ': a label that fits is drawn whole', cpu);
    await page.screenshot({ path: path.join(outDir, 'merged-labels-' + w + '.png'), clip: { x: box.x, y: box.y, width: Math.min(box.width, 700), height: 140 } });
    const lane = vk[1];
    await page.mouse.move(box.x + 20, box.y + lane.y + lane.h / 2 - await page.evaluate(() => document.getElementById('tlwrap').scrollTop));
    await page.waitForTimeout(50);
    const t = await page.evaluate(() => ({ hidden: document.getElementById('tip').hidden,
      head: (document.querySelector('#tip .tname') || {}).textContent, text: document.getElementById('tip').textContent }));
    check(!t.hidden && t.head === lane.full && t.text.includes('Process: ' + LONG_PROC),
      'width ' + w + ': hovering a cut label shows it whole', t);
  }
  await page.setViewportSize({ width: 1400, height: 1000 });
  await page.goto('file://' + htmlPath);
  await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 30000 });
  const plain = await page.evaluate(() => opscope.laneLabels());
  check(plain.every((x) => x.column === 180 && x.shown === x.full), 'short labels: the column keeps its 180 px', plain.map((x) => x.shown));

  // A bigger page (20,000 more records, unsorted, with nests of 80 overlapping records):
  // what the viewer decodes equals what the fixture fed, and drawing any view works.
  const bigHtml = path.join(outDir, 'big.html'), bigCsv = path.join(outDir, 'big.csv');
  execFileSync(fixture, [bigHtml, '20000', '--csv', bigCsv], { stdio: 'inherit' });
  await page.goto('file://' + bigHtml);
  await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 30000 });
  const dump = await page.evaluate(() => opscope.dump());
  const fed = fs.readFileSync(bigCsv, 'utf8').trim().split('\n').map((l) => l.split(','));
  const minStart = fed.reduce((m, r) => (BigInt(r[3]) < m ? BigInt(r[3]) : m), BigInt(fed[0][3]));
  const key = (r) => [r[0], r[1], r[2], String(r[3]), String(r[4]), r[5]].join('|');
  const want = fed.map((r) => key([Number(r[0]), Number(r[1]), Number(r[2]), BigInt(r[3]) - minStart, BigInt(r[4]), r.slice(5).join(',')])).sort();
  const have = dump.map(key).sort();
  check(have.length === want.length && have.every((k, i) => k === want[i]),
    'viewer decodes exactly the records fed (' + want.length + ')', { have: have.length, want: want.length });
  const draws = await page.evaluate(() => {
    const v = opscope.view(), F = v.full1 - v.full0, t = [];
    for (let i = 0; i < 50; i++) { const s = F / Math.pow(10, i % 7), c = v.full0 + F * ((i * 37) % 100) / 100; t.push(opscope.setView(c - s / 2, c + s / 2)); }
    return t;
  });
  check(draws.length === 50 && draws.every((x) => x >= 0 && x < 1000), 'random views draw', draws.slice(0, 5));

  // The view is kept in the URL fragment: opening #t=A,B shows that range.
  await page.goto('file://' + htmlPath + '#t=100000,150000');
  await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 30000 });
  v = await page.evaluate(() => opscope.view());
  check(v.t0 === 100000 && v.t1 === 150000, 'URL fragment sets the view', v);
  await page.keyboard.press('w');
  // written a frame and a 300 ms timer after the change: waited for (a fixed 500 ms was too
  // short for a loaded machine), the check below says what it found
  await page.waitForFunction(() => {
    const w = opscope.view();
    return location.hash === '#t=' + Math.round(w.t0) + ',' + Math.round(w.t1);
  }, null, { timeout: 30000 }).catch(() => {});
  const hash = await page.evaluate(() => location.hash);
  v = await page.evaluate(() => opscope.view());
  check(hash === '#t=' + Math.round(v.t0) + ',' + Math.round(v.t1), 'the view is written back to the fragment', { hash, v });

  // A profile without records still opens and says so.
  const emptyHtml = path.join(outDir, 'empty.html');
  execFileSync(fixture, [emptyHtml, '--empty'], { stdio: 'inherit' });
  await page.goto('file://' + emptyHtml);
  await page.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 30000 });
  const emptySummary = await page.textContent('#summary');
  check(/^0 records/.test(emptySummary), 'empty profile opens', emptySummary);

  check(errors.length === 0, 'no page errors', errors);
  check(requests.length === 0, 'no network requests', requests);
  await close();
  console.log(passes + ' passed, ' + failures + ' failed');
  process.exit(failures ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
