/*
 * opscope HTML viewer. Reads the JSON block #opscope-data (written by src/export/html/html_data.c,
 * format in docs/viewer.md), decodes its base64 varint columns into typed arrays and draws a
 * canvas timeline with level-of-detail: per row, records are sorted by start, and a run of
 * records narrower than a pixel is drawn as one pixel column found by binary search, so a
 * redraw costs O(pixels x log(records)) however many records there are.
 *
 * Safety: strings from the profile only ever reach the page through textContent or canvas
 * fillText; nothing here uses innerHTML, eval or URLs built from data.
 */
'use strict';
(function () {
  const perf = { start: performance.now() };
  const $ = (id) => document.getElementById(id);
  const JOB = $('opscope-job') ? JSON.parse($('opscope-job').textContent).summary.job : null;
  const D = $('opscope-data') ? JSON.parse($('opscope-data').textContent) : jobData();
  perf.parse = performance.now() - perf.start;

  // ---------------------------------------------------------------------------------------
  // Decoding

  function b64bytes(s) {
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(s);
    const bin = atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  // LEB128 unsigned varints into OUT (values above 2^53 lose precision, as any JS number).
  function varints(s, out) {
    const b = b64bytes(s);
    const n = out.length;
    let p = 0;
    for (let i = 0; i < n; i++) {
      let x = b[p++];
      if (x < 128) { out[i] = x; continue; }
      let v = x & 127, mul = 128;
      do { x = b[p++]; v += (x & 127) * mul; mul *= 128; } while (x >= 128);
      out[i] = v;
    }
    return out;
  }
  function zigzag(a) {
    const out = new Int32Array(a.length);
    for (let i = 0; i < a.length; i++) { const v = a[i]; out[i] = (v % 2) ? -(v + 1) / 2 : v / 2; }
    return out;
  }
  // A job's page (`opscope view DIR`, docs/viewer.md "A job"): one data block per rank
  // (script.opscope-rank, data-rank) and the job's summary (#opscope-job). The blocks are
  // joined into one data object: string, signature, backend and CPU thread ids offset per
  // rank, every time moved onto the earliest block's t0 (the traces' shared clock, as the
  // report reads it), and each rank's lanes kept together as a group (D.groups).
  function jobData() {
    const els = [...document.querySelectorAll('script.opscope-rank')];
    const blocks = els.map((el) => ({ rank: Number(el.dataset.rank), d: JSON.parse(el.textContent) }));
    let t0 = null;
    for (const b of blocks) if (t0 === null || BigInt(b.d.t0) < t0) t0 = BigInt(b.d.t0);
    const J = { format: 'opscope-viewer', v: 1, decoded: true, job: true, source: '', profiler: '', version: 0,
      seen: 0, kept: 0, stride: 1, total_records: 0, dropped: 0, t0: String(t0 === null ? 0 : t0), strings: [],
      short: {}, backends: [], sampled: [], lanes: [], groups: [] };
    const COLS = ['name', 'sub_op', 'extra', 'tensor', 'shape', 'category', 'type', 'backend', 'node', 'fused',
      'bytes', 'flops', 'kernel', 'n_kernels', 'traffic', 'tupper'];
    const STR = new Set(['name', 'sub_op', 'extra', 'tensor', 'shape', 'category', 'kernel']);
    let nSigs = 0, nRecs = 0;
    for (const b of blocks) { nSigs += b.d.sigs.n; nRecs += b.d.kept; }
    const sigs = {};
    for (const k of COLS) sigs[k] = new Float64Array(nSigs);
    const recs = { sig: new Uint32Array(nRecs), start: new Float64Array(nRecs), dur: new Float64Array(nRecs) };
    const cpu = { names: [], thread: [], depth: [], kind: [], name: [], start: [], dur: [], steps: [],
      window: [0, 0], busy: [], threadLabel: {} };
    const cpath = { parts: null, steps: [], hops: [] };
    let sigOff = 0, recOff = 0, nextBackend = 0, nextThread = 0, hasCpu = false, w0 = Infinity, w1 = -Infinity;
    for (const b of blocks) {
      const d = b.d, shift = Number(BigInt(d.t0) - t0), strOff = J.strings.length;
      const label = 'rank ' + b.rank;
      const g = { rank: b.rank, label, threads: [], backends: new Set() };
      J.groups.push(g);
      J.profiler = J.profiler || d.profiler;
      J.seen += d.seen; J.kept += d.kept; J.total_records += d.total_records; J.dropped += d.dropped;
      J.stride = Math.max(J.stride, d.stride);
      for (const x of d.strings) J.strings.push(x);
      for (const [id, sh] of Object.entries(d.short || {})) J.short[Number(id) + strOff] = sh;
      for (const x of d.sampled || []) J.sampled.push(x);
      const bmap = new Map(); // the block's backend id -> the page's
      for (const be of d.backends) {
        const id = nextBackend++;
        bmap.set(be.id, id);
        g.backends.add(id);
        J.backends.push(Object.assign({}, be, { id, process: label }));
      }
      const mapBackend = (id) => { if (!bmap.has(id)) { const n = nextBackend++; bmap.set(id, n); g.backends.add(n);
        J.backends.push({ id: n, name: 'device ' + id, process: label }); } return bmap.get(id); };
      const n = d.sigs.n;
      for (const k of COLS) {
        const col = d.sigs[k] ? varints(d.sigs[k], new Float64Array(n)) : new Float64Array(n);
        const out = sigs[k];
        for (let i = 0; i < n; i++) {
          let v = col[i];
          if (STR.has(k) && v) v += strOff;
          if (k === 'backend') { // zigzag: decoded, mapped, encoded again (ids >= 0)
            const id = (v % 2) ? -(v + 1) / 2 : v / 2;
            v = 2 * mapBackend(id);
          }
          out[sigOff + i] = v;
        }
      }
      const rs = varints(d.recs.sig, new Uint32Array(d.kept));
      const rt = varints(d.recs.start, new Float64Array(d.kept));
      const rd = varints(d.recs.dur, new Float64Array(d.kept));
      for (let i = 0; i < d.kept; i++) {
        recs.sig[recOff + i] = rs[i] + sigOff; recs.start[recOff + i] = rt[i]; recs.dur[recOff + i] = rd[i];
      }
      let off = recOff; // the first record of each row counts from t0: from the page's
      for (const ln of d.lanes) {
        for (const c of ln.rows) { if (c) recs.start[off] += shift; off += c; }
        J.lanes.push(Object.assign({}, ln, { backend: mapBackend(ln.backend) }));
      }
      const C = d.cpu, tmap = new Map();
      const mapThread = (t) => { if (!tmap.has(t)) { const n = nextThread++; tmap.set(t, n); g.threads.push(n);
        cpu.threadLabel[n] = label + ' \u00b7 CPU thread ' + t; } return tmap.get(t); };
      if (C) {
        hasCpu = true;
        const nameOff = cpu.names.length;
        for (const x of C.names) cpu.names.push(x);
        for (let i = 0; i < C.start.length; i++) {
          cpu.thread.push(mapThread(C.thread[i])); cpu.depth.push(C.depth[i]); cpu.kind.push(C.kind[i]);
          cpu.name.push(C.name[i] + nameOff); cpu.start.push(C.start[i] + shift); cpu.dur.push(C.dur[i]);
        }
        for (const st of C.steps) cpu.steps.push([st[0], st[1] + shift, st[2], b.rank]);
        if (C.window[1]) { w0 = Math.min(w0, C.window[0] + shift); w1 = Math.max(w1, C.window[0] + shift + C.window[1]); }
        for (const x of C.busy) cpu.busy.push([mapBackend(x[0]), x[1], x[2]]);
      }
      if (d.cpath) {
        cpath.parts = d.cpath.parts;
        for (const st of d.cpath.steps) cpath.steps.push([st[0], st[1] + shift].concat(st.slice(2), [b.rank]));
        const end = (e) => e[0] ? [1, mapBackend(e[1]), e[2], e[3] + shift] : [0, mapThread(e[1])];
        for (const h of d.cpath.hops) cpath.hops.push([h[0] + shift, h[1] + shift, h[2], end(h[3]), end(h[4])]);
      }
      sigOff += n; recOff += d.kept;
    }
    J.sigs = Object.assign({ n: nSigs }, sigs);
    J.recs = recs;
    if (hasCpu) {
      cpu.steps.sort((a, b) => a[1] - b[1]);
      if (w1 > w0) cpu.window = [w0, w1 - w0];
      J.cpu = cpu;
    }
    if (cpath.parts) J.cpath = cpath;
    J.source = blocks.length + ' ranks';
    return J;
  }


  const S = D.strings;
  const nSig = D.sigs.n;
  // a job's page has its ranks' columns decoded and joined already (jobData)
  const sigCol = (k) => D.decoded ? D.sigs[k] : varints(D.sigs[k], new Float64Array(nSig));
  const sName = sigCol('name'), sSub = sigCol('sub_op'), sExtra = sigCol('extra');
  const sTensor = sigCol('tensor'), sShape = sigCol('shape'), sCat = sigCol('category');
  const sType = sigCol('type'), sBackend = zigzag(sigCol('backend'));
  const sNode = zigzag(sigCol('node')), sFused = zigzag(sigCol('fused'));
  const sBytes = sigCol('bytes'), sFlops = sigCol('flops');
  // device kernels of GPU records (absent in pages made before they existed)
  const sKernel = D.sigs.kernel ? sigCol('kernel') : new Float64Array(nSig);
  const sNKernels = D.sigs.n_kernels ? zigzag(sigCol('n_kernels')) : new Int32Array(nSig);
  // memory traffic + 1 (0: unknown, no shapes with types) and whether it is an upper bound
  const sTraffic = D.sigs.traffic ? sigCol('traffic') : new Float64Array(nSig);
  const sTUpper = D.sigs.tupper ? sigCol('tupper') : new Float64Array(nSig);
  const str = (id) => (id ? S[id - 1] : null); // 0 = none, else string index + 1

  const N = D.kept;
  const rSig = D.decoded ? D.recs.sig : varints(D.recs.sig, new Uint32Array(N));
  const rStart = D.decoded ? D.recs.start : varints(D.recs.start, new Float64Array(N));
  const rDur = D.decoded ? D.recs.dur : varints(D.recs.dur, new Float64Array(N));

  // Rows: records of a lane split into non-overlapping rows, contiguous, sorted by start.
  const lanes = D.lanes;
  const rowLane = [], rowOff = [], rowCnt = [], rowOverlap = [], rowMaxDur = [];
  let tEnd = 0;
  {
    let off = 0;
    for (let l = 0; l < lanes.length; l++) {
      lanes[l].row0 = rowLane.length;
      for (let k = 0; k < lanes[l].rows.length; k++) {
        const c = lanes[l].rows[k];
        let prev = 0, maxDur = 0;
        for (let i = off; i < off + c; i++) {
          prev += rStart[i];
          rStart[i] = prev;
          const d = rDur[i];
          if (d > maxDur) maxDur = d;
          if (prev + d > tEnd) tEnd = prev + d;
        }
        rowLane.push(l); rowOff.push(off); rowCnt.push(c);
        rowOverlap.push(lanes[l].overlap[k]); rowMaxDur.push(maxDur);
        off += c;
      }
    }
  }
  const nRows = rowLane.length;
  // A trace's CPU side (D.cpu, docs/viewer.md): slices of cpu_ops and runtime calls in rows
  // by thread and nesting depth, each row sorted by start; steps; GPU busy per device.
  const C = D.cpu || null;
  const cpuRows = []; // {thread, depth, off, cnt, maxDur}
  let cpuStart = null, cpuDur = null, cpuMin = 0, cpuMax = 0;
  const cpuThreads = [];
  if (C) {
    cpuStart = Float64Array.from(C.start); cpuDur = Float64Array.from(C.dur);
    for (let i = 0; i < cpuStart.length; i++) {
      const r = cpuRows[cpuRows.length - 1];
      if (!r || r.thread !== C.thread[i] || r.depth !== C.depth[i]) {
        cpuRows.push({ thread: C.thread[i], depth: C.depth[i], off: i, cnt: 1, maxDur: cpuDur[i] });
        if (cpuThreads[cpuThreads.length - 1] !== C.thread[i]) cpuThreads.push(C.thread[i]);
      } else { r.cnt++; if (cpuDur[i] > r.maxDur) r.maxDur = cpuDur[i]; }
      cpuMin = Math.min(cpuMin, cpuStart[i]); cpuMax = Math.max(cpuMax, cpuStart[i] + cpuDur[i]);
    }
    for (const st of C.steps) { cpuMin = Math.min(cpuMin, st[1]); cpuMax = Math.max(cpuMax, st[1] + st[2]); }
  }
  // Capture windows and marks (D.windows, docs/viewer.md): a profile recorded in windows holds
  // only the graph computes that began in them; the time between them was not recorded. Marks
  // are instants the user named (`opscope ctl mark`). Times in ns after t0.
  const WN = D.windows || null;
  const nWin = WN ? WN.start.length : 0, nMark = WN ? WN.mark_ts.length : 0;
  const winGaps = []; // [start, end) not recorded: before the first window, between, after the last
  if (WN && WN.windowed) {
    let prev = WN.from;
    for (let i = 0; i < nWin; i++) { if (WN.start[i] > prev) winGaps.push([prev, WN.start[i]]); prev = Math.max(prev, WN.end[i]); }
    if (WN.to > prev) winGaps.push([prev, WN.to]);
  }
  // the window holding time T (its index; -1 outside every window or without windows)
  const winOf = (t) => { // the windows are in time order: the last one starting at or before T
    let lo = 0, hi = nWin;
    while (lo < hi) { const m = (lo + hi) >> 1; if (WN.start[m] <= t) lo = m + 1; else hi = m; }
    return lo && t < WN.end[lo - 1] ? lo - 1 : -1;
  };
  const MARK_COLOR = '#d9480f'; // marks, and the edge a window cut on a partial request
  let winDrawn = { windows: 0, gaps: 0, gapLabels: 0, marks: 0, markLabels: 0 }; // the last draw's (the test hook's)
  // Graph computes (D.graphs, docs/viewer.md): each compute's span and phase as the report's
  // "Graphs by batch" and diff's `--by phase` give it (src/analyze/ggml/graphs.c), in start order.
  // A phase band is a run of consecutive computes of one phase: prefill, then decode, ...
  const G = D.graphs || null;
  const nG = G ? G.id.length : 0;
  const gStart = new Float64Array(nG), gDur = new Float64Array(nG);
  let gMaxDur = 0;
  const phaseRuns = []; // {phase, start, end, n, first, last, batch, win}
  for (let i = 0; i < nG; i++) {
    gStart[i] = G.start[i]; gDur[i] = G.dur[i];
    if (gDur[i] > gMaxDur) gMaxDur = gDur[i];
    const ph = G.phases[G.phase[i]], e = gStart[i] + gDur[i], r = phaseRuns[phaseRuns.length - 1];
    const win = nWin ? winOf(gStart[i]) : -1; // a phase band never spans time not recorded
    if (r && r.phase === ph && r.win === win) { r.end = Math.max(r.end, e); r.n++; r.last = i; r.batch += G.batch[i]; }
    else phaseRuns.push({ phase: ph, start: gStart[i], end: e, n: 1, first: i, last: i, batch: G.batch[i], win });
  }
  const runStart = Float64Array.from(phaseRuns, (r) => r.start);
  const runMaxDur = phaseRuns.reduce((m, r) => Math.max(m, r.end - r.start), 0);
  // llama.cpp's requests (D.requests, docs/viewer.md): per request its span, its prompt phase
  // (to the end of the call that gave its first output) and its generation; a row per slot
  // (context, seq), at most REQ_ROWS_MAX (more slots share rows); warm-ups on their slot's row.
  const RQ = D.requests || null;
  const nR = RQ ? RQ.request.length : 0;
  const REQ_ROW_H = 13, REQ_ROWS_MAX = 8;
  const reqSlots = [], reqRow = new Int32Array(nR);
  {
    const seen = new Map();
    for (let i = 0; i < nR; i++) {
      const key = RQ.context[i] + ':' + RQ.seq[i];
      if (!seen.has(key)) { seen.set(key, reqSlots.length); reqSlots.push({ context: RQ.context[i], seq: RQ.seq[i] }); }
      reqRow[i] = seen.get(key) % REQ_ROWS_MAX;
    }
  }
  const nReqRows = Math.min(reqSlots.length, REQ_ROWS_MAX), nClients = nR ? RQ.warmup.filter((w) => !w).length : 0;
  // CPU threads at ggml's barriers (D.threads, docs/viewer.md): per CPU node with per-thread
  // times, in start order, its start, its signature and each thread's work then wait (ns); a
  // lane per thread below the data lanes, as the Chrome export's tracks: on thread t's lane a
  // node is its work from the node's start, then its wait at the node's barriers.
  const TH = D.threads || null;
  const nTh = TH ? TH.threads : 0, nThRec = TH ? TH.n : 0;
  const thSig = TH ? varints(TH.sig, new Uint32Array(nThRec)) : null;
  const thStart = TH ? varints(TH.start, new Float64Array(nThRec)) : null;
  const thNt = TH ? varints(TH.nt, new Uint8Array(nThRec)) : null;
  const thOff = new Uint32Array(nThRec + 1); // node k's pairs: thWW[thOff[k] .. thOff[k + 1])
  for (let k = 0, t = 0; k < nThRec; k++) { t += thStart[k]; thStart[k] = t; thOff[k + 1] = thOff[k] + 2 * thNt[k]; }
  const thWW = TH ? varints(TH.ww, new Uint32Array(thOff[nThRec])) : null;
  let thMaxDur = 0; // the longest work + wait: where a lane's search for the view starts
  for (let p = 0; p < thOff[nThRec]; p += 2) if (thWW[p] + thWW[p + 1] > thMaxDur) thMaxDur = thWW[p] + thWW[p + 1];
  const thCpus = TH ? TH.cpus : [];
  const thLabel = (t) => 'CPU thread ' + t + (thCpus[t] >= 0 ? ' (CPU ' + thCpus[t] + ')' : '');
  const thLaneY = new Float64Array(nTh);
  let thDrawn = []; // per thread, what the last draw drew (the test hook's)
  if (TH) D.threads = null;
  // The encoded columns (and the page's copy of them) are no longer needed: let them go.
  D.recs = null;
  D.sigs = null;
  for (const el of document.querySelectorAll('#opscope-data, script.opscope-rank')) el.textContent = '';
  perf.decode = performance.now() - perf.start - perf.parse;

  // ---------------------------------------------------------------------------------------
  // Ops, colours, aggregates

  const backendById = new Map();
  for (const b of D.backends) backendById.set(b.id, b);
  const backendName = (id) => { const b = backendById.get(id); return b && b.name ? b.name : 'backend ' + id; };

  const opIndex = new Map(), opLabel = [], opIsCopy = [];
  const sigOp = new Int32Array(nSig);
  for (let s = 0; s < nSig; s++) {
    const sub = str(sSub[s]);
    const label = (str(sName[s]) || '?') + (sub ? '(' + sub + ')' : '');
    let o = opIndex.get(label);
    if (o === undefined) { o = opLabel.length; opIndex.set(label, o); opLabel.push(label); opIsCopy.push(sType[s] === 1); }
    sigOp[s] = o;
  }
  const nOp = opLabel.length;
  // Sampled device timing (docs/capture.md): per op, the computes timed on the device of all
  // those it ran in, and its total estimated over all of them; the table's times are measured.
  const sampledOf = new Map();
  for (const x of D.sampled || []) sampledOf.set((x.name || '?') + (x.sub ? '(' + x.sub + ')' : ''), x);
  // legend labels: long kernel names in their short form (D.short, as the report's tables),
  // numbered where two kernels share one; the full name stays in the tooltip and the table
  const opShort = opLabel.slice();
  {
    const SH = D.short || {};
    for (let s = 0; s < nSig; s++) {
      const sh = SH[sName[s]];
      if (sh) { const sub = str(sSub[s]); opShort[sigOp[s]] = sh + (sub ? '(' + sub + ')' : ''); }
    }
  }
  const sigCount = new Float64Array(nSig), sigTotal = new Float64Array(nSig);
  const sigMin = new Float64Array(nSig).fill(Infinity), sigMax = new Float64Array(nSig);
  for (let i = 0; i < N; i++) {
    const s = rSig[i], d = rDur[i];
    sigCount[s]++; sigTotal[s] += d;
    if (d < sigMin[s]) sigMin[s] = d;
    if (d > sigMax[s]) sigMax[s] = d;
  }
  // A merged RPC profile counts each instant once per machine (docs/metrics.md, "Merged RPC
  // time"): the part of the client's RPC records under the server records' union is the
  // server's; %Time leaves it out of the client's rows and of the denominator.
  const sigCovered = new Float64Array(nSig);
  let rpcCovered = 0;
  {
    let client = null;
    for (const b of D.backends) if (b.process && (b.name || '').startsWith('RPC')) client = b.process;
    const srv = [], cli = [];
    for (let i = 0; client !== null && i < N; i++) {
      const b = backendById.get(sBackend[rSig[i]]);
      if (!b || !b.process) continue;
      if (b.process !== client) srv.push(i);
      else if ((b.name || '').startsWith('RPC')) cli.push(i);
    }
    srv.sort((a, b) => rStart[a] - rStart[b]);
    const u0 = [], u1 = [];
    for (const i of srv) {
      const a = rStart[i], e = a + rDur[i], n = u1.length;
      if (n && a <= u1[n - 1]) { if (e > u1[n - 1]) u1[n - 1] = e; } else { u0.push(a); u1.push(e); }
    }
    for (const i of cli) {
      const a = rStart[i], e = a + rDur[i];
      let lo = 0, hi = u0.length; // first union interval ending after a
      while (lo < hi) { const m = (lo + hi) >> 1; if (u1[m] <= a) lo = m + 1; else hi = m; }
      let c = 0;
      for (let k = lo; k < u0.length && u0[k] < e; k++) c += Math.min(e, u1[k]) - Math.max(a, u0[k]);
      sigCovered[rSig[i]] += c; rpcCovered += c;
    }
  }
  const opTotal = new Float64Array(nOp), opCount = new Float64Array(nOp), opCovered = new Float64Array(nOp);
  let grandTotal = -rpcCovered; // the time %Time counts
  for (let s = 0; s < nSig; s++) {
    opTotal[sigOp[s]] += sigTotal[s]; opCount[sigOp[s]] += sigCount[s]; grandTotal += sigTotal[s];
    opCovered[sigOp[s]] += sigCovered[s];
  }
  const opRank = Array.from({ length: nOp }, (_, i) => i).sort((a, b) => opTotal[b] - opTotal[a]);
  {
    const seen = new Map();
    for (const o of opRank) {
      if (opShort[o] === opLabel[o]) continue;
      const k = (seen.get(opShort[o]) || 0) + 1;
      seen.set(opShort[o], k);
      if (k > 1) opShort[o] += ' #' + k;
    }
  }
  const opHue = new Float64Array(nOp);
  opRank.forEach((o, r) => { opHue[o] = (r * 137.508 + 200) % 360; });
  let opColor = [], dimColor = '#ccc', theme = {};
  function applyTheme(dark) {
    document.documentElement.classList.toggle('dark', dark);
    const cs = getComputedStyle(document.documentElement);
    for (const k of ['bg', 'fg', 'muted', 'panel', 'line', 'lane-a', 'lane-b', 'axis', 'accent', 'dim', 'view', 'view-line'])
      theme[k] = cs.getPropertyValue('--' + k).trim();
    dimColor = theme.dim;
    opColor = Array.from({ length: nOp }, (_, o) =>
      'hsl(' + opHue[o].toFixed(1) + ',' + (dark ? '60%,58%)' : '62%,52%)'));
  }
  let dark = false;
  try { dark = localStorage.getItem('opscope-theme') === 'dark'; } catch (e) { /* file:// may refuse */ }
  if (!dark && window.matchMedia) dark = window.matchMedia('(prefers-color-scheme: dark)').matches &&
    (function () { try { return localStorage.getItem('opscope-theme') !== 'light'; } catch (e) { return true; } })();
  applyTheme(dark);

  // ---------------------------------------------------------------------------------------
  // Formatting

  function fmtNs(ns) {
    const a = Math.abs(ns);
    if (a < 1e3) return ns.toFixed(0) + ' ns';
    if (a < 1e6) return (ns / 1e3).toPrecision(a < 1e4 ? 3 : a < 1e5 ? 4 : 5).replace(/\.?0+$/, '') + ' \u00b5s';
    if (a < 1e9) return (ns / 1e6).toPrecision(a < 1e7 ? 3 : a < 1e8 ? 4 : 5).replace(/\.?0+$/, '') + ' ms';
    return (ns / 1e9).toPrecision(4).replace(/\.?0+$/, '') + ' s';
  }
  function fmtDur(ns) {
    if (ns < 1e3) return ns.toFixed(0) + ' ns';
    if (ns < 1e6) return (ns / 1e3).toFixed(2) + ' \u00b5s';
    if (ns < 1e9) return (ns / 1e6).toFixed(3) + ' ms';
    return (ns / 1e9).toFixed(3) + ' s';
  }
  function fmtBytes(b) {
    if (b < 1024) return b + ' B';
    const u = ['KiB', 'MiB', 'GiB', 'TiB'];
    let i = -1;
    do { b /= 1024; i++; } while (b >= 1024 && i < u.length - 1);
    return b.toFixed(2) + ' ' + u[i];
  }
  function fmtCount(n) { return Math.round(n).toLocaleString('en-US'); }
  // bytes per ns = GB/s; flops per ns = GFLOP/s
  function fmtRate(x, unit) { return x > 0 && isFinite(x) ? x.toFixed(2) + ' ' + unit : '-'; }

  // ---------------------------------------------------------------------------------------
  // Layout

  const tl = $('timeline'), wrap = $('tlwrap'), space = $('tlspace'), mm = $('minimap');
  const ctx = tl.getContext('2d', { alpha: false });
  const mctx = mm.getContext('2d', { alpha: false });
  // The label column widens to the longest lane label (a merged profile's process prefix),
  // between LABEL_MIN and LABEL_MAX_FRAC of the window; longer labels are cut in the middle.
  const LABEL_MIN = 180, LABEL_MAX = 420, LABEL_MAX_FRAC = 0.35, LABEL_FONT = '11px system-ui, sans-serif';
  const AXIS_H = 22, ROW_H = 16, LANE_PAD = 6;
  // Under the axis, when the profile has graph computes: a row of phase bands and a row of
  // compute bands, fixed while the lanes scroll; the lanes start at TOP.
  const BAND_H = 16, BANDS_H = nG ? 2 * BAND_H + 3 : 0, REQS_H = nR ? nReqRows * REQ_ROW_H + 2 : 0;
  const TOP = AXIS_H + BANDS_H + REQS_H;
  let LABEL_W = LABEL_MIN;
  // ggml profiles have scheduler splits; foreign traces (Kineto, Chrome) have streams.
  const isGgml = /^(ggml|opscope)/.test(D.profiler || 'ggml') || !D.profiler;
  const splitWord = isGgml ? ' \u00b7 split ' : ' \u00b7 stream ';
  // Shown lanes: a ggml scheduler's splits take turns on their backend, so by default one
  // lane shows all of a backend's ops (another its copies), each row of each split in the
  // first sub-row where it overlaps nothing; the Splits button shows a lane per split. A
  // trace's streams run at once: a lane each. Data lanes come grouped by backend, then copy.
  let perSplit = !isGgml, shownLanes = [];
  const rowY = new Float64Array(nRows);
  let contentH = TOP;
  function rowsOverlap(a, b) { // rows sorted by start: one merge pass
    let i = rowOff[a], j = rowOff[b];
    const ie = i + rowCnt[a], je = j + rowCnt[b];
    while (i < ie && j < je) {
      if (rStart[i] + rDur[i] <= rStart[j]) i++;
      else if (rStart[j] + rDur[j] <= rStart[i]) j++;
      else return true;
    }
    return false;
  }
  const cpuLaneY = new Map(); // thread -> y of its lane; a row's y: lane y + depth rows
  const cpuDepth = new Map();
  const cpuLaneH = (t) => cpuDepth.get(t) * ROW_H + LANE_PAD;
  let cpuH = 0;
  // A job's page: one group per rank, its CPU threads then its devices' lanes, a line above
  // each (groupTops); any other page: one group, the CPU threads above every data lane.
  const groups = D.groups || null;
  let groupTops = [];
  const cpuThreadLabel = (t) => (C && C.threadLabel && C.threadLabel[t]) || 'CPU thread ' + t;
  function placeThread(t) {
    cpuLaneY.set(t, contentH);
    let depth = 0;
    for (const r of cpuRows) if (r.thread === t) depth = Math.max(depth, r.depth + 1);
    cpuDepth.set(t, depth);
    contentH += depth * ROW_H + LANE_PAD;
  }
  function layoutLanes() {
    cpuLaneY.clear();
    shownLanes = [];
    for (let l = 0; l < lanes.length; l++) {
      const prev = shownLanes[shownLanes.length - 1];
      if (!perSplit && prev && prev.backend === lanes[l].backend && prev.copy === lanes[l].copy) prev.members.push(l);
      else shownLanes.push({ backend: lanes[l].backend, copy: lanes[l].copy, members: [l] });
    }
    contentH = TOP;
    groupTops = [];
    if (!groups) {
      for (const t of cpuThreads) placeThread(t);
      cpuH = contentH - TOP;
      for (const d of shownLanes) placeLane(d);
      for (let t = 0; t < nTh; t++) { thLaneY[t] = contentH; contentH += ROW_H + LANE_PAD; }
      return;
    }
    cpuH = 0;
    const hasThread = new Set(cpuThreads);
    for (const g of groups) {
      groupTops.push({ y: contentH, label: g.label });
      for (const t of g.threads) if (hasThread.has(t)) placeThread(t);
      for (const d of shownLanes) if (g.backends.has(d.backend)) placeLane(d);
    }
  }
  function placeLane(d) {
    const subs = []; // per sub-row, the data rows in it (never two that overlap in time)
    for (const l of d.members) {
      for (let k = 0; k < lanes[l].rows.length; k++) {
        const r = lanes[l].row0 + k;
        let s = d.members.length === 1 ? k : 0;
        while (s < subs.length && subs[s].some((q) => rowsOverlap(q, r))) s++;
        while (subs.length <= s) subs.push([]);
        subs[s].push(r);
        rowY[r] = contentH + LANE_PAD / 2 + s * ROW_H;
      }
    }
    d.y = contentH;
    d.h = Math.max(1, subs.length) * ROW_H + LANE_PAD;
    contentH += d.h;
  }
  perf.lanes = performance.now();
  layoutLanes();
  perf.lanes = performance.now() - perf.lanes; // the collapsed splits' overlap checks
  // A merged profile (opscope merge): backends carry their process; lanes come grouped by
  // backend id, so one process's lanes are together, headed by its name.
  const processOf = (id) => { const b = backendById.get(id); return b && b.process ? b.process : ''; };
  // a data lane's label: the process (merged profiles), then the part that tells lanes apart
  const dataTail = (l) => backendName(lanes[l].backend) + (lanes[l].copy ? ' copies' : '') + splitWord + lanes[l].split;
  const dataLabel = (l) => (processOf(lanes[l].backend) ? processOf(lanes[l].backend) + ' \u00b7 ' : '') + dataTail(l);
  // a shown lane's: a data lane's, or for collapsed splits the backend and their count
  function laneTail(d) {
    const m = shownLanes[d].members;
    if (perSplit) return dataTail(m[0]);
    return backendName(shownLanes[d].backend) + (shownLanes[d].copy ? ' copies' : '') +
      (m.length > 1 ? ' \u00b7 ' + m.length + ' splits' : '');
  }
  const laneProcess = (d) => processOf(shownLanes[d].backend);
  function laneLabel(d) {
    const p = laneProcess(d);
    return (p ? p + ' \u00b7 ' : '') + laneTail(d);
  }
  // TEXT cut in the middle with an ellipsis to fit MAXW (measured with MEASURE), keeping
  // as much of its start as of its end; the whole text when it fits.
  function fitMiddle(text, maxW, measure) {
    if (measure(text) <= maxW) return text;
    let lo = 0, hi = text.length - 1, best = '\u2026';
    while (lo <= hi) {
      const n = (lo + hi) >> 1, h = Math.ceil(n / 2);
      const cand = text.slice(0, h) + '\u2026' + text.slice(text.length - (n - h));
      if (measure(cand) <= maxW) { best = cand; lo = n + 1; } else hi = n - 1;
    }
    return best;
  }
  // The label as drawn in a column of width MAXW: whole when it fits; else the process is
  // shortened in its middle (host start and program end stay) while the backend and split
  // stay whole, and only when they alone do not fit is the whole label cut in its middle.
  function shownLabel(l, maxW, measure) {
    const full = laneLabel(l);
    if (measure(full) <= maxW) return full;
    const p = laneProcess(l), tail = ' \u00b7 ' + laneTail(l);
    const room = maxW - measure(tail);
    if (p && room >= measure('\u2026') + 40) return fitMiddle(p, room, measure) + tail;
    return fitMiddle(full, maxW, measure);
  }
  let shown = []; // per lane, the label as drawn at the current column width
  const cpuShown = new Map(); // per CPU thread, likewise
  function layoutLabels() {
    ctx.font = LABEL_FONT;
    const measure = (t) => ctx.measureText(t).width;
    let widest = 0;
    for (let d = 0; d < shownLanes.length; d++) widest = Math.max(widest, measure(laneLabel(d)));
    for (const t of cpuThreads) widest = Math.max(widest, measure(cpuThreadLabel(t)));
    for (let t = 0; t < nTh; t++) widest = Math.max(widest, measure(thLabel(t)));
    const cap = Math.max(LABEL_MIN, Math.min(LABEL_MAX, Math.floor(cssW * LABEL_MAX_FRAC)));
    LABEL_W = Math.min(cap, Math.max(LABEL_MIN, Math.ceil(widest) + 14));
    shown = shownLanes.map((_, d) => shownLabel(d, LABEL_W - 10, measure));
    cpuShown.clear();
    for (const t of cpuThreads) cpuShown.set(t, fitMiddle(cpuThreadLabel(t), LABEL_W - 10, measure));
  }
  // the first lane of each process group (a thicker line above it)
  const groupStart = (d) => !groups && d > 0 && processOf(shownLanes[d].backend) !== processOf(shownLanes[d - 1].backend);

  let dpr = 1, cssW = 800, cssH = 300;
  function resize() {
    dpr = window.devicePixelRatio || 1;
    cssW = Math.max(300, wrap.clientWidth);
    const want = Math.min(contentH, Math.max(160, Math.round(window.innerHeight * 0.58)));
    wrap.style.height = want + 1 + 'px'; // and its 1 px bottom border (box-sizing: border-box): no lane cut
    cssH = want;
    space.style.height = contentH + 'px';
    tl.style.height = cssH + 'px';
    tl.width = Math.round(cssW * dpr); tl.height = Math.round(cssH * dpr);
    mm.width = Math.round(cssW * dpr); mm.height = Math.round(48 * dpr);
    layoutLabels();
    buildMinimap();
  }

  // ---------------------------------------------------------------------------------------
  // View state, search and selection

  // a windowed capture's page spans the run, from the capture's start to its end: the gaps show
  const full0 = Math.min(0, cpuMin, WN ? WN.from : 0), full1 = Math.max(tEnd, cpuMax, 1, WN ? WN.to : 0);
  let v0 = full0, v1 = full1;
  const minSpan = 50; // ns
  function clampView() {
    let span = v1 - v0;
    const fullSpan = full1 - full0;
    if (span > fullSpan * 1.05) span = fullSpan * 1.05;
    if (span < minSpan) span = minSpan;
    const pad = fullSpan * 0.025;
    if (v0 < full0 - pad) v0 = full0 - pad;
    v1 = v0 + span;
    if (v1 > full1 + pad) { v1 = full1 + pad; v0 = v1 - span; }
  }
  const plotW = () => cssW - LABEL_W;

  let filter = '', selOp = -1, selShape = -1, histOp = -1, selRec = -1;
  const opMatch = new Uint8Array(nOp).fill(1);
  const sigMatch = new Uint8Array(nSig).fill(1);
  let active = false;
  function updateMatch() {
    for (let o = 0; o < nOp; o++) opMatch[o] = !filter || opLabel[o].toLowerCase().includes(filter) ? 1 : 0;
    for (let s = 0; s < nSig; s++)
      sigMatch[s] = opMatch[sigOp[s]] && (selOp < 0 || (sigOp[s] === selOp && sShape[s] === selShape)) ? 1 : 0;
    active = !!filter || selOp >= 0;
  }

  // ---------------------------------------------------------------------------------------
  // Drawing

  function lowerBound(a, lo, hi, t) { // first index in [lo,hi) with a[i] >= t
    while (lo < hi) { const m = (lo + hi) >>> 1; if (a[m] < t) lo = m + 1; else hi = m; }
    return lo;
  }

  // Rectangles are collected per colour (op index; nOp = dimmed) as x, y, width triples and
  // painted after all rows: one fillStyle change per colour instead of one per rectangle.
  const buckets = Array.from({ length: nOp + 1 }, () => []);
  function emit(ci, x, y, w) {
    const b = buckets[ci], n = b.length;
    if (n && b[n - 2] === y && x >= b[n - 3] && x <= b[n - 3] + b[n - 1] + 0.01) {
      const e = Math.max(b[n - 3] + b[n - 1], x + w);
      b[n - 1] = e - b[n - 3];
    } else b.push(x, y, w);
  }
  function flushBuckets(h) {
    for (let ci = 0; ci <= nOp; ci++) {
      const b = buckets[ci];
      if (!b.length) continue;
      ctx.fillStyle = ci === nOp ? dimColor : opColor[ci];
      for (let k = 0; k < b.length; k += 3) ctx.fillRect(LABEL_W + b[k], b[k + 1], b[k + 2], h);
      b.length = 0;
    }
  }

  // Names inside records wide enough to hold some text: x, y, width, op index.
  const labels = [];
  const opTextW = new Float64Array(nOp).fill(-1);
  function drawLabels(h) {
    ctx.font = '10px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    for (let k = 0; k < labels.length; k += 4) {
      const x = labels[k], y = labels[k + 1], w = labels[k + 2], o = labels[k + 3];
      if (o < 0) { // a CPU slice (-1 - index)
        const text = C.names[C.name[-1 - o]], tw = ctx.measureText(text).width;
        const n = tw > w - 6 ? Math.floor((w - 12) / (tw / text.length)) : text.length;
        if (n < 2) continue;
        ctx.fillStyle = theme.fg;
        ctx.fillText(n < text.length ? text.slice(0, n) + '\u2026' : text, LABEL_W + Math.max(x, 0) + 3, y + h / 2 + 0.5);
        continue;
      }
      if (opTextW[o] < 0) opTextW[o] = ctx.measureText(opLabel[o]).width;
      let text = opLabel[o];
      if (opTextW[o] > w - 6) {
        const n = Math.floor((w - 12) / (opTextW[o] / text.length));
        if (n < 2) continue;
        text = text.slice(0, n) + '\u2026';
      }
      const hue = opHue[o];
      ctx.fillStyle = hue > 40 && hue < 200 ? '#111' : '#fff'; // dark text on yellow..cyan
      ctx.fillText(text, LABEL_W + Math.max(x, 0) + 3, y + h / 2 + 0.5);
    }
    labels.length = 0;
  }

  function drawRow(r, y) {
    const off = rowOff[r], end = off + rowCnt[r];
    const W = plotW(), scale = W / (v1 - v0);
    let i;
    if (rowOverlap[r]) i = lowerBound(rStart, off, end, v0 - rowMaxDur[r]);
    else { i = lowerBound(rStart, off, end, v0) - 1; if (i < off) i = off; }
    while (i < end) {
      const s = rStart[i];
      if (s > v1) break;
      const e = s + rDur[i];
      if (e < v0) { i++; continue; }
      const x0 = (s - v0) * scale, x1 = (e - v0) * scale;
      if (x1 - x0 >= 1) {
        const sg = rSig[i];
        const a = Math.max(x0, -2), b = Math.min(x1, W + 2);
        const ci = !active || sigMatch[sg] ? sigOp[sg] : nOp;
        emit(ci, a, y, b - a >= 3 ? b - a - 1 : b - a); // a 1px seam between wide neighbours
        if (b - a >= 36 && ci < nOp) labels.push(a, y, b - a, ci);
        i++;
        continue;
      }
      // A sub-pixel record: everything starting in this pixel column becomes one column.
      const px = Math.floor(x0);
      const tNext = v0 + (px + 1) / scale;
      let j, ci;
      if (active) {
        let hit = -1;
        for (j = i; j < end && rStart[j] < tNext; j++) if (hit < 0 && sigMatch[rSig[j]]) hit = j;
        ci = hit >= 0 ? sigOp[rSig[hit]] : nOp;
      } else {
        j = lowerBound(rStart, i + 1, end, tNext);
        ci = sigOp[rSig[i]];
      }
      emit(ci, px, y, 1);
      // In a non-overlapping row only the last record starting in the column can reach past it.
      if (j - 1 > i && rStart[j - 1] + rDur[j - 1] > tNext) j = j - 1;
      i = j > i ? j : i + 1;
    }
  }

  // CPU slices: colour by name (cpu_ops) from a small palette, runtime calls in one colour;
  // the same level-of-detail walk as drawRow (a run of sub-pixel slices is one pixel column).
  const CPU_HUES = 12;
  const cpuBuckets = Array.from({ length: CPU_HUES + 2 }, () => []);
  const cpuHue = (i) => C.kind[i] === 1 ? CPU_HUES : C.name[i] % CPU_HUES;
  // C.kind: 0 cpu_op, 1 runtime call, 2 user annotation (record_function, ProfilerStep#), 3 Python
  const CPU_KIND = ['CPU op', 'runtime call', 'annotation', 'Python function'];
  // A thread's lane: each node's work in its op's colour (dimmed like the records when a
  // search or selection leaves it out), then its wait as a thin grey bar from the work's end,
  // drawn under any work it reaches;
  // a run of nodes narrower than a pixel becomes one pixel column, as in drawRow.
  const TH_WAIT_H = 4;
  const thWaits = [];
  function drawThreads(top) {
    const W = plotW(), scale = W / (v1 - v0);
    thDrawn = [];
    for (let t = 0; t < nTh; t++) {
      const c = { work: 0, wait: 0, columns: 0, inColumns: 0 };
      thDrawn.push(c);
      const y = thLaneY[t] - top + LANE_PAD / 2 + 1;
      if (y + ROW_H < TOP || y > cssH) continue;
      let k = lowerBound(thStart, 0, nThRec, v0 - thMaxDur);
      while (k < nThRec) {
        const s = thStart[k];
        if (s > v1) break;
        if (thNt[k] <= t) { k++; continue; }
        const p = thOff[k] + 2 * t, wk = thWW[p], wt = thWW[p + 1], e = s + wk + wt;
        if (e < v0 || (wk === 0 && wt === 0)) { k++; continue; }
        const x0 = (s - v0) * scale, xm = (s + wk - v0) * scale, x1 = (e - v0) * scale;
        const sg = thSig[k], ci = !active || sigMatch[sg] ? sigOp[sg] : nOp;
        if (x1 - x0 >= 1) {
          if (wk > 0 && s + wk >= v0) {
            const a = Math.max(x0, -2), b = Math.min(xm, W + 2);
            emit(ci, a, y, b - a >= 3 ? b - a - 1 : Math.max(b - a, 0.5)); // a seam between wide neighbours
            c.work++;
          }
          if (wt > 0 && s + wk <= v1) {
            const a = Math.max(xm, -2), b = Math.min(x1, W + 2);
            thWaits.push(a, y + (ROW_H - 2 - TH_WAIT_H) / 2, Math.max(b - a, 0.5));
            c.wait++;
          }
          k++;
          continue;
        }
        const px = Math.floor(x0), tNext = v0 + (px + 1) / scale;
        const j = lowerBound(thStart, k + 1, nThRec, tNext);
        emit(ci, px, y, 1);
        c.columns++;
        c.inColumns += j - k;
        k = j > k ? j : k + 1;
      }
    }
    // waits first: a wait that runs past the next node's start (the last node before the
    // compute returns waits until then) stays under that node's work
    ctx.fillStyle = theme.muted;
    for (let q = 0; q < thWaits.length; q += 3) ctx.fillRect(LABEL_W + thWaits[q], thWaits[q + 1], thWaits[q + 2], TH_WAIT_H);
    thWaits.length = 0;
    flushBuckets(ROW_H - 2);
  }
  // The node under canvas css (CX, CY) on a thread's lane, within 2 px: {t, k}, or null.
  function threadAt(cx, cy) {
    if (cx < LABEL_W) return null;
    let t = -1;
    for (let q = 0; q < nTh; q++) { const y = thLaneY[q] - scrollTop; if (cy >= y && cy < y + ROW_H + LANE_PAD) t = q; }
    if (t < 0) return null;
    const sc = plotW() / (v1 - v0), at = v0 + (cx - LABEL_W) / sc, tol = 2 / sc;
    let best = null, bestD = Infinity;
    for (let k = lowerBound(thStart, 0, nThRec, at - tol - thMaxDur); k < nThRec && thStart[k] <= at + tol; k++) {
      if (thNt[k] <= t) continue;
      const p = thOff[k] + 2 * t, e = thStart[k] + thWW[p] + thWW[p + 1];
      const d = at < thStart[k] ? thStart[k] - at : at > e ? at - e : 0;
      if (d <= tol && d < bestD) { best = { t, k }; bestD = d; }
    }
    return best;
  }
  function showThreadTip(th, mx, my) {
    const k = th.k, p = thOff[k] + 2 * th.t, s = thSig[k];
    tip.replaceChildren();
    const h = document.createElement('div');
    h.className = 'tname';
    h.textContent = opLabel[sigOp[s]];
    tip.appendChild(h);
    line(tip, 'Lane', thLabel(th.t));
    line(tip, 'Work', fmtDur(thWW[p]));
    line(tip, 'Wait', fmtDur(thWW[p + 1]) + ' at the node\'s barriers');
    line(tip, 'Start', fmtNs(thStart[k]) + ' after first record');
    if (sNode[s] >= 0) line(tip, 'Node', String(sNode[s]));
    placeTip(mx, my);
  }
  function cpuRowY(r) { return cpuLaneY.get(r.thread) + LANE_PAD / 2 + r.depth * ROW_H; }
  function drawCpu(top) {
    const W = plotW(), scale = W / (v1 - v0);
    for (const r of cpuRows) {
      const y = cpuRowY(r) - top + 1;
      if (y + ROW_H < TOP || y > cssH) continue;
      const off = r.off, end = off + r.cnt;
      let i = lowerBound(cpuStart, off, end, v0 - r.maxDur);
      while (i < end) {
        const st = cpuStart[i];
        if (st > v1) break;
        const e = st + cpuDur[i];
        if (e < v0) { i++; continue; }
        const x0 = (st - v0) * scale, x1 = (e - v0) * scale;
        if (x1 - x0 >= 1) {
          const a = Math.max(x0, -2), b = Math.min(x1, W + 2);
          cpuBuckets[cpuHue(i)].push(a, y, b - a >= 3 ? b - a - 1 : b - a);
          if (b - a >= 36) labels.push(a, y, b - a, -1 - i);
          i++;
          continue;
        }
        const px = Math.floor(x0), tNext = v0 + (px + 1) / scale;
        cpuBuckets[cpuHue(i)].push(px, y, 1);
        const j = lowerBound(cpuStart, i + 1, end, tNext);
        i = j > i ? j : i + 1;
      }
    }
    for (let k = 0; k < cpuBuckets.length; k++) {
      const b = cpuBuckets[k];
      if (!b.length) continue;
      ctx.fillStyle = k === CPU_HUES ? theme.accent : 'hsl(' + (k * 30 + 15) + ',35%,' + (dark ? '45%)' : '70%)');
      for (let q = 0; q < b.length; q += 3) ctx.fillRect(LABEL_W + b[q], b[q + 1], b[q + 2], ROW_H - 2);
      b.length = 0;
    }
  }
  // Profiler steps: a line at each step's start (and the last one's end), named on the axis.
  function drawSteps() {
    if (!C || !C.steps.length) return;
    const W = plotW(), scale = W / (v1 - v0);
    ctx.fillStyle = theme.fg;
    ctx.font = LABEL_FONT;
    const last = C.steps[C.steps.length - 1];
    const marks = C.steps.map((st) => [st[1], 'step ' + st[0]]).concat([[last[1] + last[2], '']]);
    let lastText = -Infinity; // a job's ranks step at about the same times: one name per place
    for (const [t, name] of marks) {
      const x = LABEL_W + (t - v0) * scale;
      if (x < LABEL_W || x > cssW) continue;
      ctx.globalAlpha = 0.6;
      for (let y = AXIS_H; y < cssH; y += 6) ctx.fillRect(x, y, 1, 3); // dashed
      ctx.globalAlpha = 1;
      if (name && x - lastText > 50) { ctx.fillText(name, x + 3, AXIS_H + 8); lastText = x; }
    }
  }

  // Phase and compute bands. Colours by phase; a compute's band alternates two shades so
  // neighbours stay apart; a band wide enough carries its label, cut to fit.
  const PHASE_HUE = { prefill: 28, decode: 212 };
  function phaseColor(ph, light) {
    const h = PHASE_HUE[ph];
    if (h === undefined) return dark ? (light ? '#666' : '#555') : (light ? '#ddd' : '#c8c8c8');
    return 'hsl(' + h + ',' + (dark ? '45%,' + (light ? '40%)' : '33%)') : '70%,' + (light ? '84%)' : '76%)'));
  }
  const phaseLabel = (r) => r.phase + ' \u00b7 ' + r.n + (r.n === 1 ? ' compute' : ' computes');
  const graphLabel = (i) => 'graph ' + G.id[i] + ' \u00b7 batch ' + G.batch[i];
  function bandText(text, x, w, y) {
    const a = Math.max(x, 0), room = Math.min(x + w, plotW()) - a - 6;
    if (room < 14) return;
    let t = text;
    if (ctx.measureText(t).width > room) {
      const n = Math.floor(room / (ctx.measureText(t).width / t.length)) - 1;
      if (n < 2) return;
      t = t.slice(0, n) + '\u2026';
    }
    ctx.fillText(t, LABEL_W + a + 3, y);
  }
  // the x extent (plot coordinates) of [s, e): at least a pixel wide
  function spanX(s, e) {
    const sc = plotW() / (v1 - v0), x0 = (s - v0) * sc, x1 = (e - v0) * sc;
    return [x0, Math.max(x1 - x0, 1)];
  }
  function drawBands() {
    const W = plotW(), y0 = AXIS_H + 1, y1 = AXIS_H + 2 + BAND_H;
    ctx.save();
    ctx.beginPath(); ctx.rect(LABEL_W, AXIS_H, W, BANDS_H); ctx.clip();
    ctx.fillStyle = theme.panel; ctx.fillRect(LABEL_W, AXIS_H, W, BANDS_H);
    ctx.font = '10px system-ui, sans-serif'; ctx.textBaseline = 'middle';
    eachRun((r, x, w) => {
      ctx.fillStyle = phaseColor(r.phase, false);
      ctx.fillRect(LABEL_W + x, y0, w >= 3 ? w - 1 : w, BAND_H - 1);
      ctx.fillStyle = theme.fg; bandText(phaseLabel(r), x, w, y0 + BAND_H / 2);
    });
    let lastPx = -Infinity;
    for (let i = lowerBound(gStart, 0, nG, v0 - gMaxDur); i < nG && gStart[i] <= v1; i++) {
      const e = gStart[i] + gDur[i];
      if (e < v0) continue;
      const [x, w] = spanX(gStart[i], e);
      if (w < 1.5 && Math.floor(x) === lastPx) continue; // one pixel column per run of tiny computes
      lastPx = Math.floor(x);
      ctx.fillStyle = phaseColor(G.phases[G.phase[i]], i % 2 === 1);
      ctx.fillRect(LABEL_W + x, y1, w >= 3 ? w - 1 : w, BAND_H - 1);
      if (w >= 40) { ctx.fillStyle = theme.fg; bandText(graphLabel(i), x, w, y1 + BAND_H / 2); }
    }
    ctx.restore();
  }
  // The requests' rows: the prompt in the prefill colour, the generation in the decode colour
  // (a warm-up's in the colour of no phase), labelled when wide enough.
  const reqY = (i) => AXIS_H + BANDS_H + 1 + reqRow[i] * REQ_ROW_H;
  // a capture window's edge cut it (OPSCOPE_REQ_CUT_*: 1 began before the window, 2 cut by its end)
  const reqCut = (i) => (RQ.partial ? RQ.partial[i] : 0);
  const CUT_TEXT = ['', 'began before the window', 'cut by the window\u2019s end', 'began before the window and cut by its end'];
  const reqLabel = (i) => (RQ.warmup[i] ? 'warm-up ' : 'request ') + RQ.request[i] + ' \u00b7 ' +
    RQ.n_prompt[i] + ' prompt + ' + RQ.n_gen[i] + ' generated' + (reqCut(i) ? ' \u00b7 partial' : '');
  function drawRequests() {
    const W = plotW(), yTop = AXIS_H + BANDS_H;
    ctx.save();
    ctx.beginPath(); ctx.rect(LABEL_W, yTop, W, REQS_H); ctx.clip();
    ctx.fillStyle = theme.panel; ctx.fillRect(LABEL_W, yTop, W, REQS_H);
    ctx.font = '10px system-ui, sans-serif'; ctx.textBaseline = 'middle';
    for (let i = 0; i < nR; i++) {
      if (RQ.end[i] < v0 || RQ.start[i] > v1) continue;
      const y = reqY(i), warm = RQ.warmup[i] === 1;
      const [x, w] = spanX(RQ.start[i], RQ.end[i]);
      const [xp, wp] = spanX(RQ.start[i], RQ.prompt_end[i]);
      ctx.fillStyle = phaseColor(warm ? 'none' : 'decode', false);
      ctx.fillRect(LABEL_W + x, y, w >= 3 ? w - 1 : w, REQ_ROW_H - 2);
      ctx.fillStyle = phaseColor(warm ? 'none' : 'prefill', false);
      ctx.fillRect(LABEL_W + xp, y, Math.min(wp, w >= 3 ? w - 1 : w), REQ_ROW_H - 2);
      if (w >= 40) { ctx.fillStyle = theme.fg; bandText(reqLabel(i), x, w, y + (REQ_ROW_H - 2) / 2); }
      const cut = reqCut(i); // a window's edge cut it: a dark stripe on that edge
      if (cut) { ctx.fillStyle = MARK_COLOR; if (cut & 1) ctx.fillRect(LABEL_W + x, y, 2, REQ_ROW_H - 2);
        if (cut & 2) ctx.fillRect(LABEL_W + x + Math.max(w - 3, 0), y, 2, REQ_ROW_H - 2); }
    }
    ctx.restore();
  }
  // A light tint of each phase over the lanes, and a line where one phase gives way to another.
  // The phase runs in view, in start order, at most one per pixel column: FN(run, x, w, k).
  function eachRun(fn) {
    let lastPx = -Infinity;
    for (let k = lowerBound(runStart, 0, phaseRuns.length, v0 - runMaxDur); k < phaseRuns.length && runStart[k] <= v1; k++) {
      const r = phaseRuns[k];
      if (r.end < v0) continue;
      const [x, w] = spanX(r.start, r.end);
      if (w < 1.5 && Math.floor(x) === lastPx) continue;
      lastPx = Math.floor(x);
      fn(r, x, w, k);
    }
  }
  function drawPhaseTint() {
    const lines = [];
    ctx.globalAlpha = dark ? 0.12 : 0.22;
    eachRun((r, x, w, k) => {
      if (k > 0 && (!lines.length || x - lines[lines.length - 1] >= 8)) lines.push(x); // not denser than 8 px
      if (PHASE_HUE[r.phase] === undefined || w < 2) return; // a tint narrower than 2 px tells nothing
      ctx.fillStyle = phaseColor(r.phase, true);
      ctx.fillRect(LABEL_W + x, TOP, w, cssH - TOP);
    });
    ctx.globalAlpha = 0.7;
    ctx.strokeStyle = theme.muted; ctx.lineWidth = 1; ctx.setLineDash([3, 3]);
    ctx.beginPath(); // one dashed path for all the lines
    for (const x of lines) { ctx.moveTo(LABEL_W + Math.round(x) + 0.5, TOP); ctx.lineTo(LABEL_W + Math.round(x) + 0.5, cssH); }
    ctx.stroke(); ctx.setLineDash([]);
    ctx.globalAlpha = 1;
  }
  // The time not recorded between windows, over the lanes: a grey wash, said when wide enough.
  function drawGaps() {
    const W = plotW(), n = { gaps: 0, labels: 0 };
    ctx.font = LABEL_FONT;
    for (const [s, e] of winGaps) {
      if (e < v0 || s > v1) continue;
      const [x, w] = spanX(s, e), a = Math.max(x, 0), b = Math.min(x + w, W);
      if (b <= a) continue;
      ctx.globalAlpha = dark ? 0.45 : 0.55; ctx.fillStyle = theme.dim;
      ctx.fillRect(LABEL_W + a, TOP, b - a, cssH - TOP);
      ctx.globalAlpha = 1; n.gaps++;
      const t = 'not recorded', tw = ctx.measureText(t).width;
      if (b - a >= tw + 8) { ctx.fillStyle = theme.muted; ctx.fillText(t, LABEL_W + (a + b - tw) / 2, TOP + 10); n.labels++; }
    }
    winDrawn.gaps = n.gaps; winDrawn.gapLabels = n.labels;
  }
  // The windows as shaded spans on the time axis, and each mark a line across the page with its
  // text on the axis (a label that would overlap the one before is not drawn; its line is).
  function drawWindowsAxis() {
    const W = plotW();
    let nw = 0, nm = 0, nl = 0;
    ctx.save(); ctx.beginPath(); ctx.rect(LABEL_W, 0, W, cssH); ctx.clip();
    for (let i = 0; i < nWin; i++) {
      if (WN.end[i] < v0 || WN.start[i] > v1) continue;
      const [x, w] = spanX(WN.start[i], WN.end[i]);
      ctx.globalAlpha = 0.28; ctx.fillStyle = theme.accent;
      ctx.fillRect(LABEL_W + x, 0, w, AXIS_H - 1);
      ctx.globalAlpha = 1; ctx.fillRect(LABEL_W + x, AXIS_H - 4, w, 3);
      nw++;
    }
    ctx.font = LABEL_FONT;
    let lastLabel = -Infinity;
    for (let i = 0; i < nMark; i++) {
      const t = WN.mark_ts[i];
      if (t < v0 || t > v1) continue;
      const x = LABEL_W + Math.round((t - v0) * W / (v1 - v0)) + 0.5;
      ctx.strokeStyle = MARK_COLOR; ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(x, 0); ctx.lineTo(x, cssH); ctx.stroke();
      nm++;
      if (x - lastLabel < 60) continue;
      const text = fitMiddle(WN.mark_text[i], 160, (s) => ctx.measureText(s).width);
      ctx.fillStyle = theme.panel; ctx.fillRect(x + 2, 1, ctx.measureText(text).width + 4, AXIS_H - 8);
      ctx.fillStyle = MARK_COLOR; ctx.fillText(text, x + 4, AXIS_H / 2 - 2);
      lastLabel = x + ctx.measureText(text).width + 6; nl++;
    }
    ctx.restore();
    winDrawn.windows = nw; winDrawn.marks = nm; winDrawn.markLabels = nl;
  }
  // the band under canvas css (CX, CY): {phase: run index} or {graph: compute index}, or null
  function bandAt(cx, cy) {
    if ((nWin || nMark) && cx >= LABEL_W && cy >= 0 && cy < AXIS_H) return axisAt(cx);
    if ((!nG && !nR) || cx < LABEL_W || cy < AXIS_H || cy >= TOP) return null;
    const sc = plotW() / (v1 - v0), t = v0 + (cx - LABEL_W) / sc, tol = 2 / sc;
    if (cy >= AXIS_H + BANDS_H) { // the requests' rows: the shortest request under the pointer
      const row = Math.floor((cy - AXIS_H - BANDS_H - 1) / REQ_ROW_H);
      let best = -1;
      for (let i = 0; i < nR; i++)
        if (reqRow[i] === row && t >= RQ.start[i] - tol && t <= RQ.end[i] + tol &&
          (best < 0 || RQ.end[i] - RQ.start[i] < RQ.end[best] - RQ.start[best])) best = i;
      return best >= 0 ? { req: best } : null;
    }
    if (cy < AXIS_H + 1 + BAND_H) {
      for (let k = 0; k < phaseRuns.length; k++) if (t >= phaseRuns[k].start - tol && t <= phaseRuns[k].end + tol) return { phase: k };
      return null;
    }
    let best = -1;
    for (let i = lowerBound(gStart, 0, nG, t - tol - gMaxDur); i < nG && gStart[i] <= t + tol; i++)
      if (gStart[i] + gDur[i] >= t - tol && (best < 0 || gDur[i] < gDur[best])) best = i;
    return best >= 0 ? { graph: best } : null;
  }
  // on the axis at canvas css X: the mark within 4 px ({mark}), else the window ({win}) or the
  // time not recorded ({gap}) under the pointer, or null
  function axisAt(cx) {
    const sc = plotW() / (v1 - v0), t = v0 + (cx - LABEL_W) / sc;
    let best = -1;
    for (let i = 0; i < nMark; i++)
      if (Math.abs(WN.mark_ts[i] - t) * sc <= 4 && (best < 0 || Math.abs(WN.mark_ts[i] - t) < Math.abs(WN.mark_ts[best] - t))) best = i;
    if (best >= 0) return { mark: best };
    const w = winOf(t);
    if (w >= 0) return { win: w };
    const g = winGaps.findIndex(([a, e]) => t >= a && t < e);
    return g >= 0 ? { gap: g } : null;
  }
  function showBandTip(b, mx, my) {
    tip.replaceChildren();
    const h = document.createElement('div');
    h.className = 'tname';
    const from = (ns) => fmtDur(ns - WN.from) + ' from the capture\u2019s start';
    if (b.mark !== undefined) {
      h.textContent = 'mark ' + (b.mark + 1) + ': ' + WN.mark_text[b.mark];
      tip.appendChild(h);
      line(tip, 'At', from(WN.mark_ts[b.mark]));
    } else if (b.win !== undefined) {
      const i = b.win;
      h.textContent = 'window ' + (i + 1) + ' of ' + nWin + (WN.open[i] ? ' (open at the profile\u2019s last write)' : '');
      tip.appendChild(h);
      line(tip, 'Recorded', fmtDur(WN.end[i] - WN.start[i]) + '  (' + from(WN.start[i]) + ' \u2013 ' + fmtDur(WN.end[i] - WN.from) + ')');
    } else if (b.gap !== undefined) {
      const [a, e] = winGaps[b.gap];
      h.textContent = 'not recorded';
      tip.appendChild(h);
      line(tip, 'Span', fmtDur(e - a) + '  (' + from(a) + ' \u2013 ' + fmtDur(e - WN.from) + '): graph computes here are not in this profile');
    } else if (b.req !== undefined) {
      const i = b.req, pe = RQ.prompt_end[i];
      h.textContent = RQ.warmup[i] ? 'warm-up ' + RQ.request[i] + ' (llama.cpp\u2019s empty run before serving, not a request)'
        : 'request ' + RQ.request[i];
      tip.appendChild(h);
      line(tip, 'Slot', 'context ' + RQ.context[i] + ' \u00b7 seq ' + RQ.seq[i]);
      if (reqCut(i)) line(tip, 'Partial', CUT_TEXT[reqCut(i)] + ': the profile holds only its calls in the window');
      line(tip, 'Prompt', fmtCount(RQ.n_prompt[i]) + ' tokens in ' + fmtDur(pe - RQ.start[i]));
      line(tip, 'Generated', fmtCount(RQ.n_gen[i]) + ' tokens in ' + fmtDur(RQ.end[i] - pe));
      line(tip, 'Calls', fmtCount(RQ.decodes[i]) + ' llama_decode');
      line(tip, 'Span', fmtDur(RQ.end[i] - RQ.start[i]) + '  (' + fmtNs(RQ.start[i]) + ' \u2013 ' + fmtNs(RQ.end[i]) + ')');
    } else if (b.phase !== undefined) {
      const r = phaseRuns[b.phase];
      h.textContent = r.phase;
      tip.appendChild(h);
      line(tip, 'Computes', fmtCount(r.n) + '  (graph ' + G.id[r.first] + (r.n > 1 ? ' \u2013 ' + G.id[r.last] : '') + ')');
      line(tip, 'Span', fmtDur(r.end - r.start) + '  (' + fmtNs(r.start) + ' \u2013 ' + fmtNs(r.end) + ')');
      line(tip, 'Batch rows', fmtCount(r.batch) + '  (widest MUL_MAT per compute, summed: tokens in llama.cpp)');
    } else {
      const i = b.graph;
      h.textContent = 'graph ' + G.id[i];
      tip.appendChild(h);
      line(tip, 'Phase', G.phases[G.phase[i]]);
      line(tip, 'Batch', String(G.batch[i]));
      line(tip, 'Span', fmtDur(gDur[i]) + '  (' + fmtNs(gStart[i]) + ' \u2013 ' + fmtNs(gStart[i] + gDur[i]) + ')');
    }
    placeTip(mx, my);
  }

  function niceStep(span, px) {
    const raw = span * 90 / Math.max(px, 1);
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
    return 10 * p;
  }

  // ---------------------------------------------------------------------------------------
  // The critical path (D.cpath: docs/critical_path.md, docs/viewer.md): each hop of the path
  // between a CPU thread and a GPU stream is an arrow from where it leaves a lane to where it
  // enters the next, coloured by the part its time counts as; between two hops on one lane the
  // path runs along that lane (a segment). Drawn while the Critical path button is pressed.
  const CP = D.cpath && D.cpath.hops && D.cpath.hops.length ? D.cpath : null;
  const CP_COLOR = { cpu: '#d73a49', launch: '#e36209', kernel: '#28a745', comm: '#8a63d2', queue: '#b08800',
    wait: '#0366d6', idle: '#6a737d' };
  const cpPart = (p) => (CP && CP.parts[p]) || 'cpu';
  let cpathOn = false, cpDrawn = { arrows: 0, segments: 0, boxes: [] };
  // an end of a hop: a CPU thread ([0, thread]) or the GPU activity ([1, device, stream, start]);
  // its row: the thread's first, or the data row holding the activity (else the lane's first)
  function cpRowOf(e) {
    if (!e[0]) return { cpu: e[1] };
    let any = -1;
    for (let l = 0; l < lanes.length; l++) {
      if (backendOfLane(l) !== e[1] || lanes[l].split !== e[2]) continue;
      for (let k = 0; k < lanes[l].rows.length; k++) {
        const r = lanes[l].row0 + k;
        if (any < 0) any = r;
        const i = lowerBound(rStart, rowOff[r], rowOff[r] + rowCnt[r], e[3]);
        if (i < rowOff[r] + rowCnt[r] && rStart[i] === e[3]) return { row: r };
      }
    }
    return any >= 0 ? { row: any } : null;
  }
  function backendOfLane(l) { return lanes[l].backend; }
  const cpEnds = CP ? CP.hops.map((h) => [cpRowOf(h[3]), cpRowOf(h[4])]) : [];
  // segments: from a hop's arrival to the next hop's departure on the same lane, within a step
  const cpSegs = [];
  if (CP) {
    const starts = CP.steps.map((s) => s[1]).sort((a, b) => a - b);
    for (let i = 0; i + 1 < CP.hops.length; i++) {
      const a = CP.hops[i], b = CP.hops[i + 1];
      if (b[0] < a[1] || a[4][0] !== b[3][0] || a[4][1] !== b[3][1] || (a[4][0] && a[4][2] !== b[3][2])) continue;
      const k = lowerBound(starts, 0, starts.length, a[1] + 1);
      if (k < starts.length && starts[k] <= b[0]) continue; // a new step began: another path
      cpSegs.push([a[1], b[0], cpEnds[i][1]]);
    }
  }
  function cpY(end) {
    if (!end) return null;
    if (end.cpu !== undefined) { const y = cpuLaneY.get(end.cpu); return y === undefined ? null : y + LANE_PAD / 2 + ROW_H / 2; }
    return rowY[end.row] + ROW_H / 2;
  }
  function drawCpath(top) {
    cpDrawn = { arrows: 0, segments: 0, boxes: [] };
    if (!CP || !cpathOn) return;
    const W = plotW(), sc = W / (v1 - v0), X = (t) => LABEL_W + (t - v0) * sc;
    ctx.save();
    ctx.beginPath(); ctx.rect(LABEL_W, AXIS_H, W, cssH - AXIS_H); ctx.clip();
    ctx.globalAlpha = 0.55; ctx.lineWidth = 5; ctx.strokeStyle = CP_COLOR.cpu;
    for (const [t0, t1, end] of cpSegs) {
      const y = cpY(end);
      if (y === null || t1 < v0 || t0 > v1) continue;
      ctx.beginPath(); ctx.moveTo(X(t0), y - top); ctx.lineTo(Math.max(X(t1), X(t0) + 1), y - top); ctx.stroke();
      cpDrawn.segments++;
    }
    ctx.globalAlpha = 1; ctx.lineWidth = 2;
    for (let i = 0; i < CP.hops.length; i++) {
      const h = CP.hops[i], ya = cpY(cpEnds[i][0]), yb = cpY(cpEnds[i][1]);
      if (ya === null || yb === null || Math.max(h[0], h[1]) < v0 || Math.min(h[0], h[1]) > v1) continue;
      const x0 = X(h[0]), y0 = ya - top, x1 = X(h[1]), y1 = yb - top;
      ctx.strokeStyle = ctx.fillStyle = CP_COLOR[cpPart(h[2])] || CP_COLOR.cpu;
      ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
      const ang = Math.atan2(y1 - y0, x1 - x0); // the head at the hop's end
      ctx.beginPath(); ctx.moveTo(x1, y1);
      ctx.lineTo(x1 - 8 * Math.cos(ang - 0.4), y1 - 8 * Math.sin(ang - 0.4));
      ctx.lineTo(x1 - 8 * Math.cos(ang + 0.4), y1 - 8 * Math.sin(ang + 0.4));
      ctx.closePath(); ctx.fill();
      cpDrawn.arrows++;
      cpDrawn.boxes.push({ x0, y0, x1, y1, part: cpPart(h[2]), from: h[3][0] ? 'gpu' : 'cpu', to: h[4][0] ? 'gpu' : 'cpu' });
    }
    ctx.restore();
  }
  // the line under the view: each step's path (the first few), its length and its parts
  function cpathText() {
    const pct = (x, l) => (l ? (100 * x / l).toFixed(1) : '0.0') + '%';
    const steps = CP.steps.slice(0, 4).map((s) => {
      const parts = CP.parts.map((p, k) => [p, s[3 + k]]).filter((x) => x[1] > 0).sort((a, b) => b[1] - a[1]);
      return (s.length > 11 ? 'rank ' + s[11] + ' ' : '') + (s[0] < 0 ? 'trace' : (CP.annotation ? 'instance ' : 'step ') + s[0]) + ' ' +
        fmtNs(s[2]) + ': ' + parts.map((x) => x[0] + ' ' + pct(x[1], s[2])).join(', ') + ', bound by ' + CP.parts[s[10]];
    });
    return 'Critical path' + (CP.annotation ? ' of ' + CP.annotation : '') + ' (' + CP.hops.length + ' hops between lanes, ' +
      cpSegs.length + ' segments along one): ' + steps.join(' \u00b7 ') +
      (CP.steps.length > 4 ? ' \u00b7 ' + (CP.steps.length - 4) + (CP.annotation ? ' more instances' : ' more steps') : '');
  }

  let lastDrawMs = 0, drawCount = 0;
  function draw() {
    const t = performance.now();
    clampView();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = theme.bg;
    ctx.fillRect(0, 0, cssW, cssH);
    const top = scrollTop, W = plotW();
    ctx.font = LABEL_FONT;
    ctx.textBaseline = 'middle';
    // lane backgrounds
    for (let d = 0; d < shownLanes.length; d++) {
      const y = shownLanes[d].y - top, h = shownLanes[d].h;
      if (y + h < TOP || y > cssH) continue;
      ctx.fillStyle = d % 2 ? theme['lane-b'] : theme['lane-a'];
      ctx.fillRect(0, y, cssW, h);
    }
    for (const [t, y0] of cpuLaneY) { ctx.fillStyle = theme['lane-b']; ctx.fillRect(0, y0 - top, cssW, cpuLaneH(t)); }
    for (let t = 0; t < nTh; t++) { ctx.fillStyle = t % 2 ? theme['lane-a'] : theme['lane-b']; ctx.fillRect(0, thLaneY[t] - top, cssW, ROW_H + LANE_PAD); }
    // records
    ctx.save();
    ctx.beginPath(); ctx.rect(LABEL_W, TOP, W, cssH - TOP); ctx.clip();
    drawPhaseTint();
    if (winGaps.length) drawGaps();
    for (let r = 0; r < nRows; r++) {
      const y = rowY[r] - top;
      if (y + ROW_H < TOP || y > cssH) continue;
      drawRow(r, y + 1);
    }
    flushBuckets(ROW_H - 2);
    if (C) drawCpu(top);
    if (nTh) drawThreads(top);
    drawLabels(ROW_H - 2);
    drawSteps();
    drawCpath(top);
    // selected record outline and labels inside wide records
    if (selRec >= 0) {
      const r = recRow(selRec), y = rowY[r] - top;
      const x0 = LABEL_W + (rStart[selRec] - v0) * W / (v1 - v0);
      const x1 = LABEL_W + (rStart[selRec] + rDur[selRec] - v0) * W / (v1 - v0);
      ctx.strokeStyle = theme.fg; ctx.lineWidth = 2;
      ctx.strokeRect(x0 - 1, y, Math.max(x1 - x0, 1) + 2, ROW_H);
    }
    if (band) {
      ctx.fillStyle = theme.view;
      ctx.fillRect(Math.min(band[0], band[1]), AXIS_H, Math.abs(band[1] - band[0]), cssH - AXIS_H);
    }
    ctx.restore();
    if (nG) drawBands();
    if (nR) drawRequests();
    // labels column
    ctx.fillStyle = theme.panel;
    ctx.fillRect(0, AXIS_H, LABEL_W, cssH - AXIS_H);
    ctx.fillStyle = theme.fg;
    if (nG) {
      ctx.fillText('phases', 6, AXIS_H + 1 + BAND_H / 2);
      ctx.fillText('graph computes (' + fmtCount(nG) + ')', 6, AXIS_H + 2 + BAND_H * 1.5);
      ctx.fillStyle = theme.line; ctx.fillRect(0, TOP - 1, cssW, 1); ctx.fillStyle = theme.fg;
    }
    if (nR) {
      ctx.fillText('requests (' + fmtCount(nClients) + (nR > nClients ? ', ' + (nR - nClients) + ' warm-up' : '') + ')',
        6, AXIS_H + BANDS_H + 1 + REQ_ROW_H / 2);
      ctx.fillStyle = theme.line; ctx.fillRect(0, TOP - 1, cssW, 1); ctx.fillStyle = theme.fg;
    }
    for (let d = 0; d < shownLanes.length; d++) {
      const y = shownLanes[d].y - top, h = shownLanes[d].h;
      if (y + h < TOP || y > cssH) continue;
      ctx.save(); ctx.beginPath(); ctx.rect(0, Math.max(y, TOP), LABEL_W - 4, h); ctx.clip();
      ctx.fillText(shown[d], 6, y + Math.min(h, ROW_H + LANE_PAD) / 2);
      ctx.restore();
      if (groupStart(d)) { ctx.fillStyle = theme.accent; ctx.fillRect(0, y, cssW, 2); ctx.fillStyle = theme.fg; }
      ctx.fillStyle = theme.line; ctx.fillRect(0, y + h - 1, cssW, 1); ctx.fillStyle = theme.fg;
    }
    for (const [t, y0] of cpuLaneY) {
      const y = y0 - top, h = cpuLaneH(t);
      if (y + h < TOP || y > cssH) continue;
      ctx.fillStyle = theme.fg;
      ctx.fillText(cpuShown.get(t) || cpuThreadLabel(t), 6, y + Math.min(h, ROW_H + LANE_PAD) / 2);
      ctx.fillStyle = theme.line; ctx.fillRect(0, y + h - 1, cssW, 1);
    }
    if (cpuH) { ctx.fillStyle = theme.accent; ctx.fillRect(0, TOP + cpuH - top - 1, cssW, 2); }
    for (let t = 0; t < nTh; t++) { // the threads' lanes: a line above the first, one under each
      const y = thLaneY[t] - top, h = ROW_H + LANE_PAD;
      if (y + h < TOP || y > cssH) continue;
      if (t === 0) { ctx.fillStyle = theme.accent; ctx.fillRect(0, y, cssW, 2); }
      ctx.fillStyle = theme.fg;
      ctx.fillText(thLabel(t), 6, y + h / 2);
      ctx.fillStyle = theme.line; ctx.fillRect(0, y + h - 1, cssW, 1);
    }
    for (const g of groupTops) { // a job's ranks: a line above each
      const y = g.y - top;
      if (y < TOP - 2 || y > cssH) continue;
      ctx.fillStyle = theme.accent; ctx.fillRect(0, y, cssW, 2);
    }
    // axis
    ctx.fillStyle = theme.panel; ctx.fillRect(0, 0, cssW, AXIS_H);
    ctx.fillStyle = theme.line; ctx.fillRect(0, AXIS_H - 1, cssW, 1);
    const step = niceStep(v1 - v0, W);
    ctx.fillStyle = theme.axis;
    for (let t0 = Math.ceil(v0 / step) * step; t0 <= v1; t0 += step) {
      const x = LABEL_W + (t0 - v0) * W / (v1 - v0);
      ctx.fillRect(x, AXIS_H - 6, 1, 6);
      ctx.fillText(fmtNs(t0), x + 3, AXIS_H / 2);
    }
    if (nWin || nMark) drawWindowsAxis();
    ctx.fillStyle = theme.panel; ctx.fillRect(0, 0, LABEL_W, AXIS_H);
    ctx.fillStyle = theme.muted; ctx.fillText(nRows ? 'time since first record' : 'time since first CPU slice', 6, AXIS_H / 2);
    drawMinimapView();
    $('view').textContent = 'View ' + fmtNs(v0) + ' \u2013 ' + fmtNs(v1) + '  (span ' + fmtNs(v1 - v0) + ')';
    lastDrawMs = performance.now() - t;
    drawCount++;
    saveViewSoon();
  }

  let pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; draw(); });
  }

  // Minimap: per backend band, per pixel column, the op with the longest record and the
  // busy fraction, computed once per width.
  let mmImage = null;
  function buildMinimap() {
    const W = Math.max(1, Math.round(cssW)), bands = [];
    const bandOf = new Int32Array(lanes.length);
    for (let l = 0; l < lanes.length; l++) {
      let k = bands.indexOf(lanes[l].backend);
      if (k < 0) { k = bands.length; bands.push(lanes[l].backend); }
      bandOf[l] = k;
    }
    const nb = Math.max(1, bands.length);
    const busy = new Float64Array(nb * W), best = new Float64Array(nb * W), bestOp = new Int32Array(nb * W).fill(-1);
    const scale = W / (full1 - full0), colNs = (full1 - full0) / W;
    for (let r = 0; r < nRows; r++) {
      const band = bandOf[rowLane[r]] * W, end = rowOff[r] + rowCnt[r];
      for (let i = rowOff[r]; i < end; i++) {
        const d = rDur[i];
        let c = Math.floor((rStart[i] - full0) * scale);
        if (c >= W) c = W - 1;
        busy[band + c] += d;
        if (d > best[band + c]) { best[band + c] = d; bestOp[band + c] = sigOp[rSig[i]]; }
      }
    }
    const H = 48, bh = H / nb;
    const off = document.createElement('canvas');
    off.width = Math.round(W * dpr); off.height = Math.round(H * dpr);
    const o = off.getContext('2d');
    o.setTransform(dpr, 0, 0, dpr, 0, 0);
    o.fillStyle = theme.panel; o.fillRect(0, 0, W, H);
    for (let k = 0; k < nb; k++) {
      // Bar height: busy time in the column relative to the band's busiest column.
      let peak = 0;
      for (let c = 0; c < W; c++) peak = Math.max(peak, busy[k * W + c]);
      for (let c = 0; c < W; c++) {
        const op = bestOp[k * W + c];
        if (op < 0) continue;
        const f = Math.min(1, busy[k * W + c] / Math.max(peak, colNs * 1e-6));
        const h = Math.max(2, f * (bh - 2));
        o.fillStyle = opColor[op];
        o.fillRect(c, k * bh + bh - 1 - h, 1, h);
      }
    }
    mmImage = off;
  }
  function drawMinimapView() {
    const W = cssW;
    mctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    if (mmImage) mctx.drawImage(mmImage, 0, 0, W, 48);
    const scale = W / (full1 - full0);
    const x0 = (v0 - full0) * scale, x1 = (v1 - full0) * scale;
    mctx.fillStyle = theme.view;
    mctx.fillRect(x0, 0, Math.max(2, x1 - x0), 48);
    mctx.strokeStyle = theme['view-line']; mctx.lineWidth = 1;
    mctx.strokeRect(x0 + 0.5, 0.5, Math.max(2, x1 - x0) - 1, 47);
  }

  // ---------------------------------------------------------------------------------------
  // Hit testing and tooltip

  const rowOfRec = (() => { // record -> row, by binary search over row offsets
    return (i) => { let lo = 0, hi = nRows - 1; while (lo < hi) { const m = (lo + hi + 1) >> 1; if (rowOff[m] <= i) lo = m; else hi = m - 1; } return lo; };
  })();
  function recRow(i) { return rowOfRec(i); }

  function pick(cx, cy) { // canvas css coordinates -> record index or -1
    if (cx < LABEL_W || cy < TOP) return -1;
    const y = cy + scrollTop;
    const W = plotW(), scale = W / (v1 - v0), t = v0 + (cx - LABEL_W) / scale, tol = 3 / scale;
    let best = -1, bestDist = Infinity;
    for (const cr of cpuRows) { // a CPU slice: -2 - its index
      if (!(y >= cpuRowY(cr) && y < cpuRowY(cr) + ROW_H)) continue;
      const end = cr.off + cr.cnt;
      for (let j = lowerBound(cpuStart, cr.off, end, t - tol - cr.maxDur); j < end && cpuStart[j] <= t + tol; j++)
        if (cpuStart[j] + cpuDur[j] >= t - tol) return -2 - j;
      return -1;
    }
    for (let r = 0; r < nRows; r++) { // collapsed splits: several rows share one y
      if (!(y >= rowY[r] && y < rowY[r] + ROW_H)) continue;
      const b = pickInRow(r, t, tol);
      if (b.i >= 0 && b.dist < bestDist) { best = b.i; bestDist = b.dist; }
    }
    return best;
  }
  function pickInRow(r, t, tol) { // the record of row R nearest T within TOL: {i, dist}
    const off = rowOff[r], end = off + rowCnt[r];
    let best = -1, bestDist = Infinity;
    let i = lowerBound(rStart, off, end, t + tol);
    const stop = rowOverlap[r] ? lowerBound(rStart, off, end, t - tol - rowMaxDur[r]) : Math.max(off, i - 2);
    for (let j = i - 1; j >= stop && j >= off; j--) {
      const s = rStart[j], e = s + rDur[j];
      const dist = t < s ? s - t : t > e ? t - e : 0;
      if (dist <= tol && (dist < bestDist || (dist === bestDist && rDur[j] < rDur[best]))) { best = j; bestDist = dist; }
    }
    if (i < end) { const dist = rStart[i] - t; if (dist <= tol && dist < bestDist) { best = i; bestDist = dist; } }
    return { i: best, dist: bestDist };
  }

  const tip = $('tip');
  function line(parent, k, v) {
    const d = document.createElement('div');
    const ks = document.createElement('span');
    ks.className = 'k';
    ks.textContent = k + ': ';
    d.appendChild(ks);
    d.appendChild(document.createTextNode(v));
    parent.appendChild(d);
  }
  function showTip(i, mx, my) {
    const s = rSig[i], d = rDur[i];
    tip.replaceChildren();
    const h = document.createElement('div');
    h.className = 'tname';
    // a copy's extra is the ggml call that made it, an op's the fused kernel's name
    const extra = str(sExtra[s]);
    h.textContent = opLabel[sigOp[s]] + (extra ? (sType[s] === 1 ? '  (via ' + extra + ')' : '  [fused: ' + extra + ']') : '');
    tip.appendChild(h);
    line(tip, 'Duration', fmtDur(d));
    line(tip, 'Start', fmtNs(rStart[i]) + ' after first record');
    line(tip, 'Lane', dataLabel(rowLane[recRow(i)]));
    if (str(sShape[s])) line(tip, 'Shape', str(sShape[s]));
    line(tip, 'Bytes', fmtBytes(sBytes[s]) + (d > 0 && sBytes[s] ? '  (' + fmtRate(sBytes[s] / d, 'GB/s') + ')' : ''));
    if (sFlops[s]) line(tip, 'FLOPs', sFlops[s].toExponential(3) + (d > 0 ? '  (' + fmtRate(sFlops[s] / d, 'GFLOP/s') + ')' : ''));
    if (sTraffic[s]) {
      const tb = sTraffic[s] - 1;
      line(tip, 'Traffic', (sTUpper[s] ? '\u2264 ' : '') + fmtBytes(tb) + (d > 0 && tb ? '  (' + fmtRate(tb / d, 'GB/s') + ')' : '') +
        (sType[s] === 0 && tb ? '  ' + (sFlops[s] / tb).toFixed(2) + ' FLOP/B' : '') + (sTUpper[s] ? '  upper bound: expert ids not recorded' : ''));
    } else if (sType[s] === 0) {
      line(tip, 'Traffic', 'unknown (no shapes with types)');
    }
    if (sNode[s] >= 0) line(tip, 'Node', String(sNode[s]) + (sFused[s] > 1 ? '  (' + sFused[s] + ' nodes fused)' : ''));
    if (str(sTensor[s])) line(tip, 'Tensor', str(sTensor[s]));
    if (str(sCat[s])) line(tip, 'Category', str(sCat[s]));
    if (str(sKernel[s])) line(tip, 'Kernels', str(sKernel[s]) + (sNKernels[s] > 1 ? '  (' + sNKernels[s] + ' dispatches)' : ''));
    placeTip(mx, my);
  }
  function showCpuTip(j, mx, my) {
    tip.replaceChildren();
    const h = document.createElement('div');
    h.className = 'tname';
    h.textContent = C.names[C.name[j]];
    tip.appendChild(h);
    line(tip, 'Kind', CPU_KIND[C.kind[j]] || 'CPU op');
    line(tip, 'Duration', fmtDur(cpuDur[j]));
    line(tip, 'Start', fmtNs(cpuStart[j]) + (nRows ? ' after first record' : ' after the first slice'));
    line(tip, 'Lane', cpuThreadLabel(C.thread[j]) + ', depth ' + C.depth[j]);
    placeTip(mx, my);
  }
  function hideTip() { tip.hidden = true; }
  function placeTip(mx, my) {
    tip.hidden = false;
    const w = tip.offsetWidth, hh = tip.offsetHeight;
    let x = mx + 14, y = my + 14;
    if (x + w > window.innerWidth - 4) x = Math.max(4, mx - w - 14);
    if (y + hh > window.innerHeight - 4) y = Math.max(4, my - hh - 14);
    tip.style.left = x + 'px'; tip.style.top = y + 'px';
  }
  // the lane whose label is at canvas css (CX, CY), or -1
  function laneAtLabel(cx, cy) {
    if (cx < 0 || cx >= LABEL_W || cy < TOP) return -1;
    const y = cy + scrollTop;
    for (let d = 0; d < shownLanes.length; d++) if (y >= shownLanes[d].y && y < shownLanes[d].y + shownLanes[d].h) return d;
    return -1;
  }
  // hovering a lane label: the whole label (the column may show it shortened)
  function showLaneTip(l, mx, my) {
    tip.replaceChildren();
    const h = document.createElement('div');
    h.className = 'tname';
    h.textContent = laneLabel(l);
    tip.appendChild(h);
    const p = laneProcess(l);
    if (p) line(tip, 'Process', p);
    line(tip, 'Backend', laneTail(l));
    placeTip(mx, my);
  }

  // ---------------------------------------------------------------------------------------
  // Interaction

  function zoomAt(factor, cx) {
    const W = plotW(), f = Math.min(Math.max((cx - LABEL_W) / W, 0), 1);
    const t = v0 + f * (v1 - v0), span = (v1 - v0) * factor;
    v0 = t - f * span; v1 = v0 + span;
    clampView(); schedule();
  }
  function pan(frac) { const d = (v1 - v0) * frac; v0 += d; v1 += d; clampView(); schedule(); }
  function setSpan(span) {
    if (!span) { v0 = full0; v1 = full1; } else { const c = (v0 + v1) / 2; v0 = c - span / 2; v1 = c + span / 2; }
    clampView(); schedule();
  }

  let mouseX = -1, drag = null, band = null, scrollTop = 0;
  tl.addEventListener('wheel', (e) => {
    e.preventDefault();
    const rect = tl.getBoundingClientRect();
    const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
    if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan(e.deltaX * unit / plotW());
    else if (e.shiftKey) { wrap.scrollTop += e.deltaY * unit; }
    else zoomAt(Math.exp(e.deltaY * unit * 0.002), e.clientX - rect.left);
  }, { passive: false });
  tl.addEventListener('mousedown', (e) => {
    if (e.button !== 0) return;
    drag = { x: e.clientX, v0, v1, moved: false, zoom: e.shiftKey };
    tl.classList.add('dragging');
    hideTip();
  });
  window.addEventListener('mousemove', (e) => {
    const rect = tl.getBoundingClientRect();
    mouseX = e.clientX - rect.left;
    if (drag) {
      const dx = e.clientX - drag.x;
      if (Math.abs(dx) > 2) drag.moved = true;
      if (drag.zoom) { // Shift+drag: select a time range to zoom into
        const rect0 = tl.getBoundingClientRect();
        band = [drag.x - rect0.left, e.clientX - rect0.left];
        schedule();
        return;
      }
      const dt = dx * (drag.v1 - drag.v0) / plotW();
      v0 = drag.v0 - dt; v1 = drag.v1 - dt; clampView(); schedule();
      return;
    }
    if (e.target === roofCanvas) return; // the roofline chart has its own tooltip
    if (e.target !== tl) { hideTip(); return; }
    const lab = laneAtLabel(e.clientX - rect.left, e.clientY - rect.top);
    if (lab >= 0) { showLaneTip(lab, e.clientX, e.clientY); return; }
    const bnd = bandAt(e.clientX - rect.left, e.clientY - rect.top);
    if (bnd) { showBandTip(bnd, e.clientX, e.clientY); return; }
    const thHit = nTh ? threadAt(e.clientX - rect.left, e.clientY - rect.top) : null;
    if (thHit) { showThreadTip(thHit, e.clientX, e.clientY); return; }
    const i = pick(e.clientX - rect.left, e.clientY - rect.top);
    if (i >= 0) showTip(i, e.clientX, e.clientY);
    else if (i <= -2) showCpuTip(-2 - i, e.clientX, e.clientY);
    else hideTip();
  });
  window.addEventListener('mouseup', (e) => {
    if (!drag) return;
    const wasClick = !drag.moved;
    if (drag.zoom && band) {
      const W = plotW(), a = Math.min(band[0], band[1]) - LABEL_W, b = Math.max(band[0], band[1]) - LABEL_W;
      band = null;
      if (b - a > 3) { const ta = v0 + a / W * (v1 - v0), tb = v0 + b / W * (v1 - v0); v0 = ta; v1 = tb; clampView(); }
      schedule();
    }
    drag = null;
    tl.classList.remove('dragging');
    if (wasClick && e.target === tl) {
      const rect = tl.getBoundingClientRect();
      const i = pick(e.clientX - rect.left, e.clientY - rect.top);
      if (i >= 0) selectRecord(i); else clearSelection();
    }
  });
  tl.addEventListener('mouseleave', hideTip);
  // Cached: reading scrollTop inside draw() would force a layout of the whole page.
  wrap.addEventListener('scroll', () => { scrollTop = wrap.scrollTop; schedule(); });
  let mmDrag = false;
  function mmMove(e) {
    const rect = mm.getBoundingClientRect();
    const t = full0 + (e.clientX - rect.left) / rect.width * (full1 - full0);
    const span = v1 - v0; v0 = t - span / 2; v1 = v0 + span; clampView(); schedule();
  }
  mm.addEventListener('mousedown', (e) => { mmDrag = true; mmMove(e); });
  window.addEventListener('mousemove', (e) => { if (mmDrag) mmMove(e); });
  window.addEventListener('mouseup', () => { mmDrag = false; });
  document.addEventListener('keydown', (e) => {
    if (e.target && e.target.tagName === 'INPUT') { if (e.key === 'Escape') e.target.blur(); return; }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const cx = mouseX >= LABEL_W && mouseX <= cssW ? mouseX : LABEL_W + plotW() / 2;
    switch (e.key) {
      case 'w': case 'W': zoomAt(0.8, cx); break;
      case 's': case 'S': zoomAt(1.25, cx); break;
      case 'a': case 'A': case 'ArrowLeft': pan(-0.1); break;
      case 'd': case 'D': case 'ArrowRight': pan(0.1); break;
      case 'ArrowUp': wrap.scrollTop -= ROW_H * 2; break;
      case 'ArrowDown': wrap.scrollTop += ROW_H * 2; break;
      case '0': setSpan(0); break;
      case 'Escape': clearSelection(); break;
      default: return;
    }
    e.preventDefault();
  });
  for (const b of $('zooms').querySelectorAll('button'))
    b.addEventListener('click', () => setSpan(Number(b.dataset.span)));
  $('search').addEventListener('input', (e) => {
    filter = e.target.value.trim().toLowerCase();
    updateMatch(); schedule(); renderStats(); renderLegend();
  });
  $('theme').addEventListener('click', () => {
    dark = !document.documentElement.classList.contains('dark');
    try { localStorage.setItem('opscope-theme', dark ? 'dark' : 'light'); } catch (e) { /* ignore */ }
    applyTheme(dark); buildMinimap(); schedule(); renderLegend(); drawHist(); drawRoof();
  });
  $('helpbtn').addEventListener('click', () => { $('help').hidden = !$('help').hidden; });
  window.addEventListener('resize', () => { resize(); schedule(); });

  // ---------------------------------------------------------------------------------------
  // Selection, histogram

  function selectRecord(i) { selectShape(sigOp[rSig[i]], sShape[rSig[i]], i); }
  function selectShape(op, shape, rec) {
    selRec = rec; selOp = op; selShape = shape; histOp = selOp;
    updateMatch();
    let cnt = 0, tot = 0;
    for (let g = 0; g < nSig; g++) if (sigMatch[g]) { cnt += sigCount[g]; tot += sigTotal[g]; }
    $('selection').textContent = 'Highlighted: every ' + opLabel[selOp] +
      (str(selShape) ? ' with shape ' + str(selShape) : '') + ' \u2014 ' + fmtCount(cnt) +
      ' calls, total ' + fmtDur(tot) + ', avg ' + fmtDur(cnt ? tot / cnt : 0) + '  (Esc clears)';
    schedule(); drawHist(); renderStats();
  }
  function clearSelection() {
    selRec = -1; selOp = -1; selShape = -1;
    $('selection').textContent = '';
    updateMatch(); schedule(); drawHist(); renderStats();
  }

  const hist = $('hist'), hctx = hist.getContext('2d');
  function drawHist() {
    const W = hist.width, H = hist.height;
    hctx.fillStyle = theme.bg; hctx.fillRect(0, 0, W, H);
    const op = histOp >= 0 ? histOp : opRank[0];
    if (op === undefined) return;
    $('histtitle').textContent = 'Duration histogram: ' + opShort[op];
    $('histtitle').title = opLabel[op];
    let lo = Infinity, hi = 0;
    for (let s = 0; s < nSig; s++) if (sigOp[s] === op && sigCount[s]) { lo = Math.min(lo, sigMin[s]); hi = Math.max(hi, sigMax[s]); }
    if (!(hi > 0)) { $('histnote').textContent = 'no calls'; return; }
    lo = Math.max(lo, 1); hi = Math.max(hi, lo * 1.0001);
    const B = 48, l0 = Math.log(lo), l1 = Math.log(hi) + 1e-9;
    const all = new Float64Array(B), hl = new Float64Array(B);
    for (let i = 0; i < N; i++) {
      const s = rSig[i];
      if (sigOp[s] !== op) continue;
      let b = Math.floor((Math.log(Math.max(rDur[i], 1)) - l0) / (l1 - l0) * B);
      if (b < 0) b = 0; else if (b >= B) b = B - 1;
      all[b]++;
      if (selOp === op && sShape[s] === selShape) hl[b]++;
    }
    let mx = 0;
    for (let b = 0; b < B; b++) mx = Math.max(mx, all[b]);
    const bw = (W - 20) / B, ph = H - 24;
    for (let b = 0; b < B; b++) {
      const h = all[b] ? Math.max(1, all[b] / mx * ph) : 0;
      hctx.fillStyle = selOp === op ? dimColor : opColor[op];
      hctx.fillRect(10 + b * bw, ph + 4 - h, Math.max(1, bw - 1), h);
      if (hl[b]) { const h2 = Math.max(1, hl[b] / mx * ph); hctx.fillStyle = opColor[op]; hctx.fillRect(10 + b * bw, ph + 4 - h2, Math.max(1, bw - 1), h2); }
    }
    hctx.fillStyle = theme.muted; hctx.font = '11px system-ui, sans-serif'; hctx.textBaseline = 'bottom';
    hctx.fillText(fmtDur(lo), 10, H - 2);
    const t = fmtDur(hi); hctx.fillText(t, W - 10 - hctx.measureText(t).width, H - 2);
    $('histnote').textContent = fmtCount(opCount[op]) + ' calls, log-scale duration bins, tallest bin ' + fmtCount(mx) +
      (selOp === op ? ' (highlighted: the selected shape)' : '');
  }


  // ---------------------------------------------------------------------------------------
  // Roofline: one dot per (op, backend) with FLOPs and a known traffic, log-log, sized by
  // time; the roofs of the measured peaks (D.peak, from `--peak`) where they apply.

  const P = D.peak || null;
  const roofCanvas = $('roof'), rctx = roofCanvas.getContext('2d');
  const roofPts = [];
  let roofNoFlops = 0;
  {
    const m = new Map();
    for (let s = 0; s < nSig; s++) {
      if (!sigCount[s] || sType[s] !== 0 || !sTraffic[s]) continue;
      const k = sigOp[s] + ':' + sBackend[s];
      let g = m.get(k);
      if (!g) { g = { op: sigOp[s], backend: sBackend[s], fl: 0, tr: 0, t: 0, up: false }; m.set(k, g); }
      g.fl += sFlops[s] * sigCount[s]; g.tr += (sTraffic[s] - 1) * sigCount[s]; g.t += sigTotal[s];
      if (sTUpper[s]) g.up = true;
    }
    for (const g of m.values()) {
      if (!(g.tr > 0 && g.t > 0)) continue;
      if (!(g.fl > 0)) { roofNoFlops++; continue; }
      g.ai = g.fl / g.tr; g.gf = g.fl / g.t; g.gbps = g.tr / g.t;
      roofPts.push(g);
    }
    roofPts.sort((a, b) => b.t - a.t); // big dots first, small ones stay visible on top
  }
  // the CPU's peaks are those of CPU backends and of Vulkan on lavapipe (it runs on the CPU)
  function peakApplies(bid) {
    const b = backendById.get(bid);
    return !!P && !!b && (b.device_type === 0 || /llvmpipe|lavapipe/.test(b.device || ''));
  }
  // docs/metrics.md, Roofline: bound, the ceiling used, % of the roofline
  function roofOf(g) {
    if (!peakApplies(g.backend)) return null;
    let bw = P.memory.all_gbps, level = 'memory';
    if (g.gbps > bw && P.cache && P.cache.all_gbps > bw) { bw = P.cache.all_gbps; level = 'L2'; }
    if (g.ai * bw < P.flops.all_gflops) return { bound: 'memory', level, pct: 100 * g.gbps / bw };
    return { bound: 'compute', level: 'FMA', pct: 100 * g.gf / P.flops.all_gflops };
  }
  const RM = { l: 52, r: 12, t: 10, b: 30 };
  let roofAxes = null;
  function drawRoof() {
    const W = roofCanvas.width, H = roofCanvas.height;
    rctx.fillStyle = theme.bg; rctx.fillRect(0, 0, W, H);
    const note = [];
    if (!roofPts.length) {
      $('roofnote').textContent = 'No op group has both FLOPs and a known memory traffic' +
        (roofNoFlops ? ' (' + roofNoFlops + ' without FLOPs: element-wise ops, see the Traffic column)' : '') + '.';
      roofAxes = null;
      return;
    }
    let x0 = Infinity, x1 = 0, y0 = Infinity, y1 = 0;
    for (const g of roofPts) { x0 = Math.min(x0, g.ai); x1 = Math.max(x1, g.ai); y0 = Math.min(y0, g.gf); y1 = Math.max(y1, g.gf); }
    if (P) {
      y1 = Math.max(y1, P.flops.all_gflops);
      const ridge = P.flops.all_gflops / P.memory.all_gbps;
      x0 = Math.min(x0, ridge); x1 = Math.max(x1, ridge);
    }
    const lx0 = Math.floor(Math.log10(x0)), lx1 = Math.max(Math.ceil(Math.log10(x1)), lx0 + 1);
    const ly0 = Math.floor(Math.log10(y0)), ly1 = Math.max(Math.ceil(Math.log10(y1 * 1.5)), ly0 + 1);
    const pw = W - RM.l - RM.r, ph = H - RM.t - RM.b;
    const X = (v) => RM.l + (Math.log10(v) - lx0) / (lx1 - lx0) * pw;
    const Y = (v) => RM.t + ph - (Math.log10(v) - ly0) / (ly1 - ly0) * ph;
    roofAxes = { X, Y, lx0, lx1, ly0, ly1 };
    rctx.font = '11px system-ui, sans-serif'; rctx.lineWidth = 1;
    rctx.strokeStyle = theme.line; rctx.fillStyle = theme.muted;
    rctx.textBaseline = 'top'; rctx.textAlign = 'center';
    for (let e = lx0; e <= lx1; e++) {
      const x = X(Math.pow(10, e));
      rctx.beginPath(); rctx.moveTo(x, RM.t); rctx.lineTo(x, RM.t + ph); rctx.stroke();
      rctx.fillText(e >= 0 ? String(Math.pow(10, e)) : Math.pow(10, e).toPrecision(1), x, RM.t + ph + 3);
    }
    rctx.textAlign = 'right'; rctx.textBaseline = 'middle';
    for (let e = ly0; e <= ly1; e++) {
      const y = Y(Math.pow(10, e));
      rctx.beginPath(); rctx.moveTo(RM.l, y); rctx.lineTo(RM.l + pw, y); rctx.stroke();
      rctx.fillText(e >= 0 ? String(Math.pow(10, e)) : Math.pow(10, e).toPrecision(1), RM.l - 4, y);
    }
    rctx.textAlign = 'left'; rctx.textBaseline = 'bottom';
    rctx.fillText('FLOP/byte', RM.l + pw - 56, RM.t + ph - 2);
    rctx.textBaseline = 'top';
    rctx.fillText('GFLOP/s', RM.l + 4, RM.t + 2);
    rctx.save();
    rctx.beginPath(); rctx.rect(RM.l, RM.t, pw, ph); rctx.clip();
    if (P) {
      const xs = Math.pow(10, lx0), xe = Math.pow(10, lx1), F = P.flops.all_gflops;
      const roofLine = (bw, dash) => {
        rctx.setLineDash(dash); rctx.strokeStyle = theme.fg; rctx.lineWidth = 1.5;
        const ridge = F / bw;
        rctx.beginPath(); rctx.moveTo(X(xs), Y(xs * bw)); rctx.lineTo(X(ridge), Y(F)); rctx.lineTo(X(xe), Y(F)); rctx.stroke();
        rctx.setLineDash([]);
      };
      roofLine(P.memory.all_gbps, []);
      if (P.cache && P.cache.all_gbps > P.memory.all_gbps) roofLine(P.cache.all_gbps, [4, 4]);
      note.push('roofs: memory ' + P.memory.all_gbps.toFixed(1) + ' GB/s' +
        (P.cache && P.cache.all_gbps > P.memory.all_gbps ? ', L2 ' + P.cache.all_gbps.toFixed(1) + ' GB/s (dashed)' : '') +
        ', f32 FMA ' + P.flops.all_gflops.toFixed(1) + ' GFLOP/s, measured on ' + (P.host || '?') + ' (' + (P.cpu || '?') + ')');
    } else {
      note.push('no peaks given (opscope peak, then --peak): dots only');
    }
    let tot = 0;
    for (const g of roofPts) tot += g.t;
    for (const g of roofPts) {
      g.r = 3 + 14 * Math.sqrt(g.t / tot);
      g.x = X(g.ai); g.y = Y(g.gf);
      rctx.globalAlpha = 0.8;
      rctx.fillStyle = opColor[g.op];
      rctx.beginPath(); rctx.arc(g.x, g.y, g.r, 0, 2 * Math.PI); rctx.fill();
      rctx.globalAlpha = 1;
      rctx.strokeStyle = peakApplies(g.backend) ? theme.fg : theme.muted;
      rctx.lineWidth = 1; rctx.stroke();
    }
    rctx.restore();
    const other = new Set(roofPts.filter((g) => !peakApplies(g.backend)).map((g) => backendName(g.backend)));
    if (P && other.size) note.push('no measured peak for ' + [...other].join(', ') + ' (grey rims)');
    if (roofNoFlops) note.push(roofNoFlops + ' groups without FLOPs not drawn (element-wise: see Traffic)');
    $('roofnote').textContent = roofPts.length + ' op groups, dot area by time; ' + note.join('; ');
  }
  function roofHit(mx, my) {
    let best = null, bd = Infinity;
    for (const g of roofPts) {
      const d = Math.hypot(g.x - mx, g.y - my);
      if (d <= g.r + 3 && d < bd) { bd = d; best = g; }
    }
    return best;
  }
  roofCanvas.addEventListener('mousemove', (e) => {
    const rc = roofCanvas.getBoundingClientRect();
    const g = roofHit((e.clientX - rc.left) * roofCanvas.width / rc.width, (e.clientY - rc.top) * roofCanvas.height / rc.height);
    if (!g) { tip.hidden = true; return; }
    tip.replaceChildren();
    const h = document.createElement('div');
    h.className = 'tname';
    h.textContent = opLabel[g.op] + '  on ' + backendName(g.backend);
    tip.appendChild(h);
    line(tip, 'Time', fmtDur(g.t));
    line(tip, 'Intensity', g.ai.toFixed(2) + ' FLOP/B' + (g.up ? '  (traffic an upper bound)' : ''));
    line(tip, 'Achieved', fmtRate(g.gf, 'GFLOP/s') + ', ' + fmtRate(g.gbps, 'GB/s'));
    const r = roofOf(g);
    line(tip, 'Roofline', r ? r.bound + '-bound (' + r.level + '), ' + r.pct.toFixed(0) + '% of the roof' :
      P ? 'no measured peak for this backend' : 'no peaks given');
    tip.hidden = false;
    let x = e.clientX + 14, y = e.clientY + 14;
    if (x + tip.offsetWidth > window.innerWidth - 4) x = Math.max(4, e.clientX - tip.offsetWidth - 14);
    if (y + tip.offsetHeight > window.innerHeight - 4) y = Math.max(4, e.clientY - tip.offsetHeight - 14);
    tip.style.left = x + 'px'; tip.style.top = y + 'px';
  });
  roofCanvas.addEventListener('mouseleave', () => { tip.hidden = true; });

  // ---------------------------------------------------------------------------------------
  // Legend and stats tree

  function renderLegend() {
    const box = $('legend');
    box.replaceChildren();
    let shown = 0;
    for (const o of opRank) {
      if (shown >= 30) break;
      if (!opMatch[o]) continue;
      shown++;
      const it = document.createElement('span');
      it.className = 'item';
      const sw = document.createElement('span');
      sw.className = 'sw'; sw.style.background = opColor[o];
      it.appendChild(sw);
      it.appendChild(document.createTextNode(opShort[o] + ' ' + (grandTotal ? (100 * (opTotal[o] - opCovered[o]) / grandTotal).toFixed(1) : '0') + '%'));
      it.title = opLabel[o] + ': ' + fmtCount(opCount[o]) + ' calls';
      it.addEventListener('click', () => { histOp = o; drawHist(); });
      box.appendChild(it);
    }
  }

  // tree[op] = { backends: Map(backend -> { sigs: [], shapes: Map(shape -> [sigs]) }) }
  const tree = Array.from({ length: nOp }, () => new Map());
  for (let s = 0; s < nSig; s++) {
    if (!sigCount[s]) continue;
    const m = tree[sigOp[s]];
    let b = m.get(sBackend[s]);
    if (!b) { b = new Map(); m.set(sBackend[s], b); }
    let sh = b.get(sShape[s]);
    if (!sh) { sh = []; b.set(sShape[s], sh); }
    sh.push(s);
  }
  function agg(sigs) {
    let c = 0, t = 0, cv = 0, mn = Infinity, mx = 0, by = 0, fl = 0, tr = 0, tk = 0, up = false;
    for (const s of sigs) {
      c += sigCount[s]; t += sigTotal[s]; cv += sigCovered[s]; by += sBytes[s] * sigCount[s]; fl += sFlops[s] * sigCount[s];
      if (sTraffic[s]) { tr += (sTraffic[s] - 1) * sigCount[s]; tk++; if (sTUpper[s]) up = true; }
      if (sigMin[s] < mn) mn = sigMin[s];
      if (sigMax[s] > mx) mx = sigMax[s];
    }
    return { c, t, cv, mn, mx, by, fl, tr, tk, up };
  }
  const expanded = new Set();
  function statRow(cls, label, a, key, twisty) {
    const tr = document.createElement('tr');
    tr.className = cls;
    const td0 = document.createElement('td');
    if (twisty !== null) {
      const tw = document.createElement('span');
      tw.className = 'tw'; tw.textContent = twisty ? '\u25be' : '\u25b8';
      td0.appendChild(tw);
    }
    td0.appendChild(document.createTextNode(label));
    tr.appendChild(td0);
    const vals = [grandTotal ? (100 * (a.t - a.cv) / grandTotal).toFixed(2) + '%' : '-', fmtCount(a.c), fmtDur(a.t),
      fmtDur(a.c ? a.t / a.c : 0), fmtDur(a.mn === Infinity ? 0 : a.mn), fmtDur(a.mx),
      fmtRate(a.t ? a.by / a.t : 0, 'GB/s'), fmtRate(a.t ? a.fl / a.t : 0, 'GFLOP/s'),
      a.tk ? (a.up ? '\u2264 ' : '') + fmtRate(a.t ? a.tr / a.t : 0, 'GB/s') : '-',
      a.tk && a.tr ? (a.fl / a.tr).toFixed(2) : '-'];
    for (const v of vals) { const td = document.createElement('td'); td.textContent = v; tr.appendChild(td); }
    if (key) tr.dataset.key = key;
    return tr;
  }
  function renderStats() {
    const body = $('statsbody');
    const frag = document.createDocumentFragment();
    for (const o of opRank) {
      if (!opMatch[o] || !opCount[o]) continue;
      const k0 = 'o' + o, open0 = expanded.has(k0);
      const sigs0 = [];
      for (const b of tree[o].values()) for (const sh of b.values()) sigs0.push(...sh);
      const r0 = statRow('l0', opLabel[o] + (opIsCopy[o] ? '  (copy)' : ''), agg(sigs0), k0, open0);
      const sm = sampledOf.get(opLabel[o]);
      if (sm) {
        const tag = document.createElement('span');
        tag.className = 'est';
        tag.textContent = 'device-timed ' + fmtCount(sm.timed) + ' / ' + fmtCount(sm.computes) + ' computes, est. ' + fmtDur(sm.est_ns);
        r0.firstChild.appendChild(tag);
      }
      if (o === selOp) r0.classList.add('sel');
      frag.appendChild(r0);
      if (!open0) continue;
      const bs = [...tree[o].entries()].map(([bid, m]) => { const sg = []; for (const sh of m.values()) sg.push(...sh); return [bid, m, agg(sg)]; });
      bs.sort((x, y) => y[2].t - x[2].t);
      for (const [bid, m, a] of bs) {
        const k1 = k0 + 'b' + bid, open1 = expanded.has(k1);
        frag.appendChild(statRow('l1', backendName(bid), a, k1, open1));
        if (!open1) continue;
        const ss = [...m.entries()].map(([sh, sg]) => [sh, agg(sg)]).sort((x, y) => y[1].t - x[1].t);
        for (const [sh, a2] of ss) {
          const r2 = statRow('l2', str(sh) || '(no shape)', a2, null, null);
          r2.dataset.op = o;
          r2.dataset.shape = sh;
          if (o === selOp && sh === selShape) r2.classList.add('sel');
          frag.appendChild(r2);
        }
      }
    }
    body.replaceChildren(frag);
  }
  $('statsbody').addEventListener('click', (e) => {
    const tr = e.target.closest('tr');
    if (tr && tr.dataset.shape !== undefined) { // a shape row highlights its calls
      selectShape(Number(tr.dataset.op), Number(tr.dataset.shape), -1);
      return;
    }
    if (!tr || !tr.dataset.key) return;
    const k = tr.dataset.key;
    if (expanded.has(k)) expanded.delete(k); else expanded.add(k);
    if (tr.classList.contains('l0')) { histOp = Number(k.slice(1)); drawHist(); }
    renderStats();
  });

  // ---------------------------------------------------------------------------------------
  // Start

  document.title = 'opscope: ' + (D.source || 'profile');
  $('source').textContent = D.source || '';
  function renderSummary() {
    $('summary').textContent = fmtCount(N) + ' records' +
      (D.seen > N ? ' (every ' + D.stride + '-th of ' + fmtCount(D.seen) + ')' : '') +
      ' \u00b7 ' + shownLanes.length + ' lanes \u00b7 span ' + fmtNs(full1 - full0) +
      (D.dropped ? ' \u00b7 ' + fmtCount(D.dropped) + ' dropped by the capture' : '') +
      (D.ended ? ' \u00b7 ' + D.ended : '') +
      (WN && WN.windowed ? ' \u00b7 recorded in ' + nWin + (nWin === 1 ? ' window' : ' windows') + ' (' + fmtDur(WN.recorded_ns) +
        ' of ' + fmtDur(WN.to - WN.from) + '): graph computes outside them are not in this profile' : '') +
      (nMark ? ' \u00b7 ' + nMark + (nMark === 1 ? ' mark' : ' marks') : '') +
      (rpcCovered ? ' \u00b7 RPC wait: ' + fmtDur(rpcCovered) + ' of the client\'s RPC records: waiting on RPC server ' +
        '(covered by server records), counted once, as the server\'s' : '') +
      (sampledOf.size ? ' \u00b7 sampled device timing: ops timed in some computes, totals over all marked est.' : '');
  }
  renderSummary();
  // The CPU side in one line: GPU busy per device over the profiler steps' window.
  if (C) {
    const parts = [cpuThreads.length + ' CPU threads', fmtCount(C.kind.filter((k) => k === 0).length) + ' CPU ops',
      fmtCount(C.kind.filter((k) => k === 1).length) + ' runtime calls', C.steps.length + ' profiler steps'];
    const nAnn = C.kind.filter((k) => k === 2).length, nPy = C.kind.filter((k) => k === 3).length;
    if (nAnn) parts.splice(3, 0, fmtCount(nAnn) + ' annotations');
    if (nPy) parts.splice(3, 0, fmtCount(nPy) + ' Python functions');
    const busy = C.busy.map((b) => (processOf(b[0]) ? processOf(b[0]) + ' ' : '') + backendName(b[0]) + ' ' + (b[1] + b[2] ? (100 * b[1] / (b[1] + b[2])).toFixed(1) : '0.0') + '%');
    if (busy.length) parts.push('GPU busy' + (C.window[1] ? ' over ' + fmtNs(C.window[1]) : '') + ': ' + busy.join(', '));
    $('cpuside').textContent = parts.join(' \u00b7 ');
    $('cpuside').hidden = false;
  }
  // A job's page: what bounds the job (one line above the timeline) and the per-rank table
  // (summary.job of `report --json`, docs/job.md); a rank's row scrolls to its lanes.
  if (JOB) {
    const ms = (ns) => (ns / 1e6).toFixed(1) + ' ms';
    const strag = new Map(JOB.stragglers.map((s) => [s.rank, s]));
    const b = JOB.bound, parts = [];
    const s0 = JOB.stragglers[0];
    if (s0) parts.push('Bound by: rank ' + s0.rank + ', ' + s0.cause + ' (others wait ' + ms(s0.wait_ns) + ')');
    else parts.push('Bound by: ' + b.resource + ' (the median rank\'s largest share); rank ' + b.rank + ' slowest');
    if (b.slowest_step >= 0) parts.push('slowest step: ProfilerStep#' + b.slowest_step + ' on rank ' + b.slowest_step_rank + ', ' + ms(b.slowest_step_ns));
    if (JOB.stragglers.length) parts.push('stragglers: ' + JOB.stragglers.map((s) => 'rank ' + s.rank + ' (' + s.cause + ')').join(', '));
    // the collective whose late rank makes the others wait longest (the first on ties), as the console's first screen
    const skew = ((JOB.collectives && JOB.collectives.types) || []).filter((t) => t.late_wait_ns > 0)
      .sort((a, b) => b.late_wait_ns - a.late_wait_ns)[0];
    // gloo's collectives have no sizes: their skew is of the ranks' times (docs/job.md)
    const timed = JOB.collectives && JOB.collectives.on === 'annotations';
    if (skew) parts.push('collective skew: ' + skew.type + ' ' + (timed ? skew.time_skew_pct : skew.busbw_skew_pct).toFixed(1) +
      '%' + (timed ? ' of time (no sizes in the trace)' : '') + ', rank ' + skew.late_rank + ' late, the others wait ' + ms(skew.late_wait_ns));
    $('jobline').textContent = JOB.ranks_count + ' ranks \u00b7 ' + parts.join(' \u00b7 ');
    $('jobline').hidden = false;
    const body = $('jobbody'), pc = (x) => x.toFixed(1) + '%';
    for (const r of JOB.ranks) {
      const tr = document.createElement('tr');
      const st = strag.get(r.rank);
      if (st) tr.className = 'straggler';
      const cells = [String(r.rank), String(r.steps_count), r.steps_count ? ms(r.step_median_ns) : '-',
        (Math.abs(r.step_dev_pct) < 0.05 ? '0.0' : (r.step_dev_pct > 0 ? '+' : '') + r.step_dev_pct.toFixed(1)) + '%', pc(r.idle_pct), pc(r.compute_pct),
        pc(r.non_compute_pct), pc(r.overlap_pct), r.measured_on === 'gpu' ? (r.launch_delay_p50_ns / 1e3).toFixed(1) + ' \u00b5s' : '-',
        st ? st.cause + ', others wait ' + ms(st.wait_ns) : '', r.trace];
      for (const c of cells) { const td = document.createElement('td'); td.textContent = c; tr.appendChild(td); }
      tr.addEventListener('click', () => {
        const g = groups ? groupTops[groups.findIndex((x) => x.rank === r.rank)] : null;
        if (g) { wrap.scrollTop = g.y - TOP; wrap.scrollIntoView({ block: 'nearest' }); }
      });
      body.appendChild(tr);
    }
    $('jobbox').hidden = false;
  }
  // The Critical path button, where the page has a path (a Kineto trace's steps)
  const cpBtn = $('cpathbtn');
  function setCpath(on) {
    cpathOn = !!on && !!CP;
    cpBtn.setAttribute('aria-pressed', String(cpathOn));
    $('cpathline').hidden = !cpathOn;
    if (cpathOn) $('cpathline').textContent = cpathText();
    schedule();
  }
  if (CP) {
    cpBtn.hidden = false;
    cpBtn.addEventListener('click', () => setCpath(!cpathOn));
  }
  // The Splits button, where some backend has several splits: collapsed <-> a lane per split.
  const splitsBtn = $('splits');
  function setSplits(on) {
    perSplit = on;
    layoutLanes(); renderSummary(); resize(); schedule();
    splitsBtn.textContent = perSplit ? 'Collapse splits' : 'Expand splits';
    splitsBtn.setAttribute('aria-pressed', String(perSplit));
  }
  if (isGgml && shownLanes.some((d) => d.members.length > 1)) {
    splitsBtn.hidden = false;
    splitsBtn.addEventListener('click', () => setSplits(!perSplit));
  }
  // The view lives in the address's fragment (#t=START,END in ns after the first record), so
  // a copied link or a reload reopens the same range.
  let saveTimer = 0;
  function saveViewSoon() {
    if (saveTimer) return;
    saveTimer = setTimeout(() => {
      saveTimer = 0;
      try { history.replaceState(null, '', '#t=' + Math.round(v0) + ',' + Math.round(v1)); } catch (e) { /* ignore */ }
    }, 300);
  }
  {
    const m = /^#t=(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(location.hash);
    if (m && Number(m[2]) > Number(m[1])) { v0 = Number(m[1]); v1 = Number(m[2]); }
  }
  resize();
  perf.layout = performance.now() - perf.start - perf.parse - perf.decode;
  draw();
  perf.firstDraw = performance.now();
  performance.mark('opscope-first-draw');

  // Test and benchmark hooks (no effect on the page).
  window.opscope = {
    // the CPU threads' lanes: labels, tops (css px in the canvas), what the last draw drew per
    // thread (work and wait segments, pixel columns of narrow nodes and the nodes in them)
    threads: () => ({ lanes: nTh, records: nThRec, cpus: Array.from(thCpus), labels: Array.from({ length: nTh }, (_, t) => thLabel(t)),
      laneY: Array.from(thLaneY, (y) => y - scrollTop), laneH: ROW_H + LANE_PAD, canvasH: cssH, drawn: thDrawn }),
    threadTipAt: (x, y) => { const th = threadAt(x, y); if (!th) return ''; showThreadTip(th, 0, 0); const s = tip.textContent; hideTip(); return s; },
    perf, N, lanes: lanes.length, rows: nRows,
    shownLanes: () => shownLanes.length,
    // the CPU side: lanes (threads), slices, steps; the busy line's text
    cpu: () => ({ threads: cpuThreads.length, slices: cpuStart ? cpuStart.length : 0, steps: C ? C.steps.length : 0,
      laneY: [...cpuLaneY.values()], rows: cpuRows.map((r) => ({ thread: r.thread, depth: r.depth, y: cpuRowY(r), n: r.cnt })),
      busy: C ? C.busy : [], text: $('cpuside').textContent }),
    // css-pixel box of CPU slice J (index in the page's cpu columns)
    cpuKind: (j) => C.kind[j],
    cpuBox: (j) => { const r = cpuRows.find((q) => j >= q.off && j < q.off + q.cnt), W = plotW(), sc = W / (v1 - v0);
      if (!r) return null;
      return { x0: LABEL_W + (cpuStart[j] - v0) * sc, x1: LABEL_W + (cpuStart[j] + cpuDur[j] - v0) * sc, y: cpuRowY(r) - scrollTop + ROW_H / 2 }; },
    setSplits: (on) => { setSplits(!!on); draw(); },
    // the critical path: hops and segments in the data, and those drawn by the last draw
    setCpath: (on) => { setCpath(on); draw(); },
    cpath: () => ({ parts: CP ? CP.parts : [], hops: CP ? CP.hops.length : 0, segments: cpSegs.length, steps: CP ? CP.steps.length : 0,
      drawnArrows: cpDrawn.arrows, drawnSegments: cpDrawn.segments, arrows: cpDrawn.boxes,
      text: $('cpathline').textContent }),
    // a job's page: its rank groups (label, top y in content px) and the lanes' labels
    cpathHops: () => (CP ? CP.hops : []),
    groups: () => groupTops.map((g) => ({ label: g.label, y: g.y })),
    jobSteps: () => (C ? C.steps : []),
    cpuLabels: () => cpuThreads.map((t) => ({ thread: t, label: cpuThreadLabel(t), y: cpuLaneY.get(t) })),
    view: () => ({ t0: v0, t1: v1, full0, full1 }),
    setView: (a, b) => { v0 = a; v1 = b; clampView(); draw(); return lastDrawMs; },
    redraw: () => { draw(); return lastDrawMs; },
    lastDrawMs: () => lastDrawMs,
    drawCount: () => drawCount,
    // css-pixel position of the middle of record I's row and of its start, for hover tests
    // the first record of op NAME, preferring one that starts inside the current view
    recordAt: (name) => {
      let first = -1;
      for (let i = 0; i < N; i++) {
        if (opLabel[sigOp[rSig[i]]] !== name) continue;
        if (rStart[i] >= v0 && rStart[i] + rDur[i] <= v1) return i;
        if (first < 0) first = i;
      }
      return first;
    },
    recordBox: (i) => {
      const r = recRow(i), W = plotW(), sc = W / (v1 - v0);
      return { x0: LABEL_W + (rStart[i] - v0) * sc, x1: LABEL_W + (rStart[i] + rDur[i] - v0) * sc, y: rowY[r] - scrollTop + ROW_H / 2 };
    },
    // every record as [backend, copy, split, start ns after t0, duration ns, name]
    dump: () => {
      const out = [];
      for (let r = 0; r < nRows; r++) {
        const ln = lanes[rowLane[r]];
        for (let i = rowOff[r]; i < rowOff[r] + rowCnt[r]; i++)
          out.push([ln.backend, ln.copy, ln.split, rStart[i], rDur[i], str(sName[rSig[i]])]);
      }
      return out;
    },
    // the shown lanes' tops and heights at the time of the call (they change with setSplits)
    layout: { get LABEL_W() { return LABEL_W; }, AXIS_H, TOP, BAND_H, ROW_H, get laneY() { return shownLanes.map((d) => d.y); },
      get laneH() { return shownLanes.map((d) => d.h); } },
    // per lane: its whole label, the label as drawn, and their widths against the column's
    laneLabels: () => {
      ctx.font = LABEL_FONT;
      return shownLanes.map((sl, d) => ({ full: laneLabel(d), shown: shown[d], shownW: ctx.measureText(shown[d]).width,
        fullW: ctx.measureText(laneLabel(d)).width, column: LABEL_W, y: sl.y, h: sl.h }));
    },
    shortNames: Object.values(D.short || {}),
    // the phase bands (ns after t0) with their labels, and where the view puts them (css px)
    bands: () => ({
      phases: phaseRuns.map((r) => { const [x, w] = spanX(r.start, r.end);
        return { phase: r.phase, label: phaseLabel(r), start: r.start, end: r.end, n: r.n, first: G.id[r.first], last: G.id[r.last],
          x0: LABEL_W + x, x1: LABEL_W + x + w, y: AXIS_H + 1 + BAND_H / 2 }; }),
      graphs: Array.from({ length: nG }, (_, i) => ({ id: G.id[i], phase: G.phases[G.phase[i]], batch: G.batch[i],
        start: gStart[i], end: gStart[i] + gDur[i], label: graphLabel(i) })),
      graphY: AXIS_H + 2 + BAND_H * 1.5,
    }),
    // the tooltip's text at canvas css (X, Y), as hovering shows it (empty when none)
    // llama.cpp's requests (ns after t0) and where the view puts them (css px): whole span,
    // prompt phase end, row centre
    requests: () => Array.from({ length: nR }, (_, i) => { const [x, w] = spanX(RQ.start[i], RQ.end[i]);
      const [xp, wp] = spanX(RQ.start[i], RQ.prompt_end[i]);
      return { request: RQ.request[i], context: RQ.context[i], seq: RQ.seq[i], warmup: RQ.warmup[i] === 1, partial: reqCut(i),
        start: RQ.start[i], promptEnd: RQ.prompt_end[i], end: RQ.end[i], nPrompt: RQ.n_prompt[i], nGen: RQ.n_gen[i],
        label: reqLabel(i), x0: LABEL_W + x, xp: LABEL_W + xp + wp, x1: LABEL_W + x + w, y: reqY(i) + (REQ_ROW_H - 2) / 2 }; }),
    // the capture's windows, the gaps not recorded and the marks (ns after t0), where the view puts
    // them (css px), and what the last draw drew
    windows: () => ({ windowed: !!(WN && WN.windowed),
      windows: Array.from({ length: nWin }, (_, i) => { const [x, w] = spanX(WN.start[i], WN.end[i]);
        return { start: WN.start[i], end: WN.end[i], open: WN.open[i] === 1, x0: LABEL_W + x, x1: LABEL_W + x + w }; }),
      gaps: winGaps.map(([s, e]) => ({ start: s, end: e })),
      marks: Array.from({ length: nMark }, (_, i) => ({ ts: WN.mark_ts[i], text: WN.mark_text[i],
        x: LABEL_W + (WN.mark_ts[i] - v0) * plotW() / (v1 - v0) })),
      drawn: Object.assign({}, winDrawn) }),
    tipAt: (x, y) => { const b = bandAt(x, y); if (!b) return ''; showBandTip(b, 0, 0); const t = tip.textContent; hideTip(); return t; },
    // roofline dots: label, backend, intensity, GFLOP/s, canvas position and radius, bound
    roofPoints: () => roofPts.map((g) => ({ op: opLabel[g.op], backend: g.backend, ai: g.ai, gflops: g.gf,
      x: g.x, y: g.y, r: g.r, roof: roofOf(g) })),
  };
  setTimeout(() => {
    updateMatch(); renderLegend(); renderStats(); drawHist(); drawRoof();
    perf.ui = performance.now() - perf.firstDraw;
    window.opscope.ready = true;
  }, 0);
})();
