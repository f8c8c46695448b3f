// A benchmark of the page in headless Chromium (reports, never gates; not run by CI): for
// each lab's URL opened in a fresh browser context (an empty cache, as a first visit), the
// bytes over the wire and the time to the first frame, then the bytes once the lab has settled
// (models fetched on first use included), and the idle cost: frames drawn over 3 s without
// input and Chromium's CPU time over them, each with the load average beside it (this 2-core
// machine is shared: a busy machine makes every time longer). Screenshots of each lab at DPR 1,
// and of two at DPR 2 and as large as the screen in fullscreen, to look at.
// The length lab's entry also has the time from its first frame to its numbers (its default
// view: every model over 8L, 4 windows each, stepped one curve per frame).
//   node tests/web/page_bench.mjs BUILD_WEB_DIR NATIVE_CLI SCREENSHOT_DIR
//   POSLAB_BENCH_LABS="length dreams" node tests/web/page_bench.mjs ...   only those labs
import fs from 'node:fs';
import path from 'node:path';

import { CEILING_MS, fetched, launch, numbers, serve, shotDir, status, waitFrames } from './lib.mjs';

const LABS = [
  ['welcome', ''],
  ['rope', 'rope?dim=64&base=10000'],
  ['attention', 'attention'],
  ['kv', 'kv'],
  ['arena', 'arena?seed=7'],
  ['dreams', 'dreams'],
  ['lessons', 'lessons?lesson=01-why-positions'],
  ['length', 'length'],
];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const load = () => +fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
const wire = (list) => list.reduce((a, e) => a + e.transfer, 0);

// CPU seconds of Chromium's whole process tree (/proc, as page_test.mjs's idle test).
function chromiumCpuSeconds(rootPid) {
  const procs = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      procs.push({ pid: +d, ppid: +f[1], ticks: +f[11] + +f[12] });
    } catch { /* gone */ }
  }
  const tree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) if (!tree.has(p.pid) && tree.has(p.ppid)) { tree.add(p.pid); grew = true; }
  }
  return procs.filter((p) => tree.has(p.pid)).reduce((a, p) => a + p.ticks, 0) / 100;
}

// Waits until the page stops drawing by itself (the lab's fetches and jobs done): true, or
// false after 60 s of frames (a lab that animates: the dream lab plays its dream).
async function settle(page) {
  for (let t0 = Date.now(), last = -1; Date.now() - t0 < 60000; await sleep(1000)) {
    const f = (await status(page)).frames;
    if (f === last) return true;
    last = f;
  }
  return false;
}

const server = await serve();
const browser = await launch();
const report = {};
try {
  fs.mkdirSync(shotDir, { recursive: true });
  const only = (process.env.POSLAB_BENCH_LABS || '').split(' ').filter(Boolean);
  for (const [lab, preset] of LABS.filter(([l]) => !only.length || only.includes(l))) {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    const r = { load_average_before: load() };
    const t0 = Date.now();
    await page.goto(`${server.base}poslab.html${preset ? '#' + encodeURIComponent(preset) : ''}`);
    await waitFrames(page, 1, CEILING_MS, { ask: false });
    r.first_frame_ms = Date.now() - t0;
    r.first_frame_wire_bytes = wire(await fetched(page));
    if (lab === 'length') {
      const tf = Date.now();
      while (!(await numbers(page)).json && Date.now() - tf < CEILING_MS) await sleep(100);
      r.numbers_after_first_frame_ms = Date.now() - tf;
    }
    r.settled = await settle(page);
    r.settled_ms = Date.now() - t0;
    r.settled_wire_bytes = wire(await fetched(page));
    const f0 = (await status(page)).frames, cpu0 = chromiumCpuSeconds(browser.process().pid), i0 = Date.now();
    await sleep(3000);  // the measurement's window
    const f1 = (await status(page)).frames, cpu1 = chromiumCpuSeconds(browser.process().pid);
    const seconds = (Date.now() - i0) / 1000;
    Object.assign(r, { idle_frames_3s: f1 - f0, idle_chromium_cpu_percent: +(100 * (cpu1 - cpu0) / seconds).toFixed(1),
                       load_average: load() });
    await page.screenshot({ path: path.join(shotDir, `${lab}_dpr1.png`) });
    if (lab === 'length' || lab === 'dreams') {
      await page.setViewport({ width: 1280, height: 800, deviceScaleFactor: 2 });
      await waitFrames(page, f1 + 3, CEILING_MS);
      await page.screenshot({ path: path.join(shotDir, `${lab}_dpr2.png`) });
      const scr = await page.evaluate(() => ({ width: screen.width, height: screen.height }));
      await page.setViewport({ ...scr, deviceScaleFactor: 1 });
      await page.evaluate(() => document.documentElement.requestFullscreen().catch(() => {}));
      await waitFrames(page, (await status(page)).frames + 3, CEILING_MS);
      await page.screenshot({ path: path.join(shotDir, `${lab}_fullscreen.png`) });
      r.fullscreen = await page.evaluate(() => ({ fullscreen: !!document.fullscreenElement,
                                                  canvas: [Module.canvas.width, Module.canvas.height] }));
    }
    report[lab] = r;
    if (r.numbers_after_first_frame_ms) console.log(`${lab}: numbers ${r.numbers_after_first_frame_ms} ms after the first frame`);
    console.log(`${lab.padEnd(10)} first frame ${r.first_frame_ms} ms, ${(r.first_frame_wire_bytes / 1e6).toFixed(2)} MB; ` +
                `${r.settled ? 'settled' : 'still animating at'} ${r.settled_ms} ms, ${(r.settled_wire_bytes / 1e6).toFixed(2)} MB; idle ${r.idle_frames_3s} frames/3 s, ` +
                `Chromium ${r.idle_chromium_cpu_percent} % of a core (load ${r.load_average_before} -> ${r.load_average})`);
    await context.close();
  }
} finally {
  await browser.close();
  server.proc.kill();
}
console.log('report ' + JSON.stringify(report));
