// threads.js - the viewer's lanes of CPU threads: every CPU thread's work and wait at ggml's
// barriers (the page data's "threads" member, docs/viewer.md). Not a script of its own: the
// build (src/viewer/embed.cmake) inserts each part below after the line of viewer.js that its
// `//@@ after: ` line names (a line that must occur exactly once there), making the script of
// the pages whose profile has per-thread times; every other page keeps viewer.js as it is.
//@@ after:   const nReqRows = Math.min(reqSlots.length, REQ_ROWS_MAX), nClients = nR ? RQ.warmup.filter((w) => !w).length : 0;
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
//@@ after:       for (const d of shownLanes) placeLane(d);
      for (let t = 0; t < nTh; t++) { thLaneY[t] = contentH; contentH += ROW_H + LANE_PAD; }
//@@ after:     for (const t of cpuThreads) widest = Math.max(widest, measure(cpuThreadLabel(t)));
    for (let t = 0; t < nTh; t++) widest = Math.max(widest, measure(thLabel(t)));
//@@ after:   const CPU_KIND = ['CPU op', 'runtime call', 'annotation', 'Python function'];
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
//@@ after:     for (const [t, y0] of cpuLaneY) { ctx.fillStyle = theme['lane-b']; ctx.fillRect(0, y0 - top, cssW, cpuLaneH(t)); }
    for (let t = 0; t < nTh; t++) { ctx.fillStyle = t % 2 ? theme['lane-a'] : theme['lane-b']; ctx.fillRect(0, thLaneY[t] - top, cssW, ROW_H + LANE_PAD); }
//@@ after:     if (C) drawCpu(top);
    if (nTh) drawThreads(top);
//@@ after:     if (cpuH) { ctx.fillStyle = theme.accent; ctx.fillRect(0, TOP + cpuH - top - 1, cssW, 2); }
    for (let t = 0; t < nTh; t++) { // the threads' lanes: a line above the first, one under each
      const y = thLaneY[t] - top, h = ROW_H + LANE_PAD;
      if (y + h < TOP || y > cssH) continue;
      if (t === 0) { ctx.fillStyle = theme.accent; ctx.fillRect(0, y, cssW, 2); }
      ctx.fillStyle = theme.fg;
      ctx.fillText(thLabel(t), 6, y + h / 2);
      ctx.fillStyle = theme.line; ctx.fillRect(0, y + h - 1, cssW, 1);
    }
//@@ after:     if (bnd) { showBandTip(bnd, e.clientX, e.clientY); return; }
    const thHit = nTh ? threadAt(e.clientX - rect.left, e.clientY - rect.top) : null;
    if (thHit) { showThreadTip(thHit, e.clientX, e.clientY); return; }
//@@ after:   window.opscope = {
    // the CPU threads' lanes: labels, tops (css px in the canvas), what the last draw drew per
    // thread (work and wait segments, pixel columns of narrow nodes and the nodes in them)
    threads: () => ({ lanes: nTh, records: nThRec, cpus: Array.from(thCpus), labels: Array.from({ length: nTh }, (_, t) => thLabel(t)),
      laneY: Array.from(thLaneY, (y) => y - scrollTop), laneH: ROW_H + LANE_PAD, canvasH: cssH, drawn: thDrawn }),
    threadTipAt: (x, y) => { const th = threadAt(x, y); if (!th) return ''; showThreadTip(th, 0, 0); const s = tip.textContent; hideTip(); return s; },
