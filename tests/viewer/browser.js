// browser.js - launches Debian's chromium headless through playwright-core with a fresh
// profile and no network: every request that is not file:// is aborted.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

async function launch() {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'opscope-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.OPSCOPE_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    deviceScaleFactor: 1,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  await context.route((url) => url.protocol !== 'file:', (route) => route.abort());
  const close = async () => {
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  };
  return { context, close };
}

// A page of CONTEXT at file HTML, WIDTH x HEIGHT css px, once the viewer says it is ready and
// has drawn; its page errors and console errors are pushed onto ERRORS.
async function openViewer(context, html, errors, width = 1600, height = 900) {
  const pg = await context.newPage();
  pg.on('pageerror', (e) => errors.push(String(e)));
  pg.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await pg.setViewportSize({ width, height });
  await pg.goto('file://' + html);
  await pg.waitForFunction(() => window.opscope && window.opscope.ready, null, { timeout: 60000 });
  await frames(pg);
  return pg;
}

// Resolves after two animation frames of PG: a draw asked for has happened.
function frames(pg) {
  return pg.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

module.exports = { launch, openViewer, frames };
