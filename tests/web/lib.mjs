// What PosLab's browser tests share (web_test.mjs: the labs against native poslab-cli;
// page_test.mjs: the page as a web app): the server, Chromium, the page's exported hooks,
// clicks as a user makes them, and the rule that any console error fails a test.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';

// Every wait is for a state (frames drawn, a file downloaded, settings stored), with one
// generous ceiling: CI's 2-core machine is often busy (POSLAB_TEST_CEILING seconds).
export const CEILING_MS = 1000 * Number(process.env.POSLAB_TEST_CEILING || 180);
export const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
export const [webDir, cli, shotDir] = process.argv.slice(2);
// puppeteer-core lives in build/web/node (run.sh installs it there, never in the repo).
const require = createRequire(path.join(path.resolve(webDir), 'node', 'package.json'));
export const puppeteer = require('puppeteer-core');

export const results = [];
export const check = (name, ok, detail = '') => {
  results.push(ok);
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? ': ' + detail : ''}`);
};
// Prints "N passed, N failed" and exits 1 on a failure.
export function finish() {
  const passed = results.filter(Boolean).length;
  console.log(`${passed} passed, ${results.length - passed} failed`);
  process.exit(results.length - passed ? 1 : 0);
}

// Headless Chromium with WebGL 2 on SwiftShader (extra `args`: a test's own flags).
export const launch = (args = [], viewport = { width: 1280, height: 800 }) => puppeteer.launch({
  executablePath: process.env.POSLAB_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
         '--ignore-gpu-blocklist', `--window-size=${viewport.width},${viewport.height}`, ...args],
  defaultViewport: viewport,
  protocolTimeout: CEILING_MS,  // a call waits as long as a test does (a long frame holds it)
});

// What a page says that fails a test: every console message of type error (a failed load,
// a 404 among them), every uncaught exception. Returns the list it fills.
export function watch(page) {
  const logs = [];
  page.on('console', (m) => { if (m.type() === 'error') logs.push(m.text()); });
  page.on('pageerror', (e) => logs.push('pageerror: ' + e.message));
  page.on('response', (r) => { if (r.status() >= 400) logs.push(`HTTP ${r.status()} ${r.url()}`); });
  return logs;
}

export function serve() {
  return new Promise((resolve, reject) => {
    const p = spawn('python3', [path.join(repo, 'scripts/web_serve.py'), path.join(webDir, 'site'), '--port', '0']);
    p.stdout.on('data', (d) => {
      const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(String(d));
      if (m) resolve({ proc: p, base: m[0] });
    });
    p.on('exit', (code) => reject(new Error(`web_serve.py exited ${code}`)));
  });
}

export const status = (page) => page.evaluate(() => JSON.parse(Module.UTF8ToString(Module._poslab_web_status())));
export const numbers = (page) => page.evaluate(() => JSON.parse(Module.UTF8ToString(Module._poslab_web_numbers())));

// Waits until the page has drawn n frames. The page idles when still (draws only on input,
// animation or a job), so each wait asks for frames as a user's input would
// (poslab_web_request_frames); a test of the idle page itself waits without asking.
export async function waitFrames(page, n, timeoutMs, { ask = true } = {}) {
  const t0 = Date.now();
  for (;;) {
    const ready = await page.evaluate(() => typeof Module !== 'undefined' && !!Module._poslab_web_status &&
                                            !!Module.calledRun);
    if (ready) {
      const s = await status(page);
      if (s.frames >= n) return s;
      if (ask) await page.evaluate(() => Module._poslab_web_request_frames && Module._poslab_web_request_frames(2));
    }
    if (Date.now() - t0 > timeoutMs) throw new Error(`fewer than ${n} frames after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const nextFrames = async (page, n) => waitFrames(page, (await status(page)).frames + n, CEILING_MS);

export const itemsLast = (page) => page.evaluate(() => JSON.parse(Module.UTF8ToString(Module._poslab_web_items())));
// The labelled items of a frame drawn now (the first call starts the recording).
export const items = async (page) => {
  await itemsLast(page);
  await nextFrames(page, 2);
  return itemsLast(page);
};
export const readFile = (page, file) => page.evaluate((f) => {
  try { return Module.FS.readFile(f, { encoding: 'utf8' }); } catch (e) { return null; }
}, file);

// Clicks the first enabled item ImGui drew that `match` accepts, as a user would: the
// pointer moves there, presses, releases, a few frames apart (ImGui polls once a frame).
export async function clickItem(page, match, what) {
  const t0 = Date.now();
  for (;;) {
    const it = (await itemsLast(page)).find((i) => match(i) && !i.disabled);
    if (it) {
      await page.mouse.move(it.x + it.w / 2, it.y + it.h / 2);
      await nextFrames(page, 2);
      await page.mouse.down();
      await nextFrames(page, 2);
      await page.mouse.up();
      await nextFrames(page, 2);
      return it;
    }
    if (Date.now() - t0 > CEILING_MS) throw new Error(`no enabled ${what} on the page`);
    await nextFrames(page, 1);
  }
}

// What the page fetched so far: [{name, transfer, decoded}] (transfer: bytes over the wire,
// headers included, gzip-compressed where the server compressed).
export const fetched = (page) => page.evaluate(() => performance.getEntriesByType('navigation')
  .concat(performance.getEntriesByType('resource'))
  .map((e) => ({ name: e.name.split('/').pop().split('#')[0], transfer: e.transferSize, decoded: e.decodedBodySize })));

// A PNG is more than one flat colour (tests/gui/png_check.py's rule, with node's zlib).
export function pngVaries(file) {
  const data = fs.readFileSync(file);
  const w = data.readUInt32BE(16);
  const idat = [];
  for (let pos = 8; pos < data.length;) {
    const n = data.readUInt32BE(pos);
    if (data.toString('latin1', pos + 4, pos + 8) === 'IDAT') idat.push(data.subarray(pos + 8, pos + 8 + n));
    pos += 12 + n;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  return new Set(raw.subarray(1, 1 + 3 * w)).size > 1 || new Set(raw).size > 8;
}

