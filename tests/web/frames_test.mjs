// Nothing freezes the page (issue 37): the longest frame of each lab while it computes, over
// its default and one heavy preset, lesson 6's model-backed questions and the dream lab's
// "Start training", measured in headless Chromium and printed against the 250 ms target.
// Long work runs in bounded steps across frames (app/widgets/background_job.hpp), so the
// frame time is the app's drawing plus a slice of steps. Frames are measured by the page
// (status's longest_frame_ms: wall time of the frame function).
// What fails: a frame over POSLAB_FRAME_LIMIT_MS (default 1000 ms), i.e. a frozen page (a
// computation in one frame took 1.6 s to minutes before the steps). The 250 ms target is a
// timing, so it is reported, not gated (a busy 2-core CI machine stretches every frame);
// POSLAB_FRAME_LIMIT_MS=250 on a quiet machine checks it (docs/web.md has the numbers).
//   node tests/web/frames_test.mjs BUILD_WEB_DIR NATIVE_CLI SCREENSHOT_DIR
import fs from 'node:fs';
import path from 'node:path';

import { CEILING_MS, check, clickItem, finish, launch, nextFrames, numbers, serve, shotDir, status, waitFrames,
         watch } from './lib.mjs';

const LIMIT_MS = Number(process.env.POSLAB_FRAME_LIMIT_MS || 1000);
const TARGET_MS = 250;
const report = {};
const resetLongest = (page) => page.evaluate(() => Module._poslab_web_reset_longest && Module._poslab_web_reset_longest());
// The longest frame since the reset (a build without the hook: of the last 120 frames).
const longest = (s) => s.longest_frame_ms ?? Math.max(0, ...(s.frame_ms || []));

// Each lab as it opens and with a heavy preset (the largest sizes its sliders allow).
const CASES = [
  ['rope', 'rope?dim=64&base=10000'],
  ['rope heavy', 'rope?dim=512&base=10000'],
  ['attention', 'attention'],
  ['attention heavy', 'attention?tokens=1024&dim=1024'],
  // The lessons' heaviest links: the trained models' attention past L, the trained KV cache.
  ['attention trained', 'attention?weights=trained&model=rope&demo=extrapolation&extrapolate=512&mean_heads=1&scale=log'],
  ['kv', 'kv'],
  ['kv heavy', 'kv?layers=4&width=256&C=512&steps=500', 5],
  ['kv trained', 'kv?weights=trained&model=rope&scenario=stream&sinks=4'],
  ['arena', 'arena?seed=7'],
  ['dreams', 'dreams'],
  ['lessons', 'lessons?lesson=01-why-positions'],
  ['lesson 6 questions', 'lessons?lesson=06-long-context&view=quiz'],
  ['length', 'length'],
  ['length heavy', 'length?span=8&windows=64', 40],
];

// Frames until the page has settled: no job has steps left, the lab's numbers are there
// (or it has none to give), and at least `min` frames were drawn.
async function settle(page, min = 30) {
  const s0 = await status(page);
  for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS; await nextFrames(page, 2)) {
    const s = await status(page);
    if (s.jobs || s.frames < s0.frames + min) continue;
    const n = await numbers(page);
    if (n.json || n.why_not) return s;
  }
  throw new Error(`still computing after ${CEILING_MS} ms`);
}

async function measure(browser, base, name, preset, act) {
  const page = await browser.newPage();
  const logs = watch(page);
  try {
    const t0 = Date.now();
    await page.goto(`${base}poslab.html#${encodeURIComponent(preset)}`);
    await waitFrames(page, 1, CEILING_MS);
    await resetLongest(page);  // from the first frame on (the page's loading is not a frame)
    let s = act ? await act(page) : await settle(page);
    s = await status(page);
    await page.screenshot({ path: path.join(shotDir, `frames_${name.replace(/ /g, '_')}.png`) });
    report[name] = { preset, longest_frame_ms: Math.round(longest(s)), frames: s.frames,
                     seconds: (Date.now() - t0) / 1000 };
    check(`${name}: no frame over ${LIMIT_MS} ms`, longest(s) <= LIMIT_MS,
          `longest ${longest(s).toFixed(0)} ms over ${s.frames} frames (${preset})`);
    const errors = s.errors.concat(logs);
    check(`${name}: no error`, errors.length === 0, errors.slice(0, 3).join(' | '));
  } catch (e) {
    await page.screenshot({ path: path.join(shotDir, `frames_${name.replace(/ /g, '_')}_failed.png`) }).catch(() => {});
    check(`${name}: runs`, false, e.message + (logs.length ? ' | ' + logs.slice(-3).join(' | ') : ''));
  }
  await page.close();
}

// A run too long to wait for in a test (the KV lab's 500 slides of the largest model, the
// length lab's 64 windows of every curve: minutes in the page): its frames while it
// computes, until it has taken `steps` steps (its progress: slides, windows); then the job's
// Cancel ends it, and the page is live at once.
const untilSteps = (name, steps) => async (page) => {
  let s = await status(page);
  for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS && !s.jobs; s = await status(page)) await nextFrames(page, 1);
  let done = 0;
  for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS && done < steps && s.jobs; await nextFrames(page, 1)) {
    s = await status(page);
    for (const [d] of s.jobs_progress || []) done = Math.max(done, d);
  }
  report[`${name}_steps_seen`] = done;
  if (s.jobs) await clickItem(page, (i) => i.label.endsWith('###cancel'), 'the job\'s Cancel button');
  for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS && s.jobs; s = await status(page)) await nextFrames(page, 1);
  check(`${name}: ${steps} steps taken, then Cancel ends the run`, done >= steps && !s.jobs, `${done} steps`);
  return s;
};

// The dream lab's "Train a world model" (its defaults: the tiny model, 64 episodes): it
// collects its episodes and trains while the page draws, until 20 steps are done; then
// Cancel ends it.
async function dreamTraining(page) {
  await settle(page, 5);
  await clickItem(page, (i) => i.label.startsWith('Start training'), '"Start training"');
  let s = await status(page);
  for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS && !s.jobs; s = await status(page)) await nextFrames(page, 1);
  // Until the run has taken training steps (its progress: optimiser steps of the total; the
  // episodes are collected first, at 0).
  let steps = 0;
  for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS && steps < 20 && s.jobs; await nextFrames(page, 2)) {
    s = await status(page);
    for (const [done] of s.jobs_progress || []) steps = Math.max(steps, done);
  }
  report.dream_training_steps_seen = steps;
  await clickItem(page, (i) => i.label.endsWith('###cancel'), 'the job\'s Stop (Cancel) button');
  for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS && s.jobs; s = await status(page)) await nextFrames(page, 2);
  check('dream training: Cancel ends the run', !s.jobs);
  return s;
}

const server = await serve();
const browser = await launch();
try {
  fs.mkdirSync(shotDir, { recursive: true });
  // Case names, comma-separated, to measure only those.
  const only = process.env.POSLAB_FRAMES_ONLY ? process.env.POSLAB_FRAMES_ONLY.split(',') : null;
  for (const [name, preset, steps] of CASES)
    if (!only || only.includes(name)) await measure(browser, server.base, name, preset, steps && untilSteps(name, steps));
  if (!only || only.includes('dream training'))
    await measure(browser, server.base, 'dream training', 'dreams?train=1&play=0&strip=0&attn=0', dreamTraining);
} finally {
  await browser.close();
  server.proc.kill();
}
// The table the closing note quotes: each case's longest frame, its frames and its time.
console.log(`case                 | longest frame (ms) | ${TARGET_MS} ms target | frames | seconds | preset`);
for (const [name, r] of Object.entries(report))
  if (r && r.preset)
    console.log(`${name.padEnd(20)} | ${String(r.longest_frame_ms).padStart(18)} | ` +
                `${(r.longest_frame_ms <= TARGET_MS ? 'within' : 'OVER').padStart(15)} | ${String(r.frames).padStart(6)} | ` +
                `${r.seconds.toFixed(1).padStart(7)} | ${r.preset}`);
console.log(`load average: ${fs.existsSync('/proc/loadavg') ? fs.readFileSync('/proc/loadavg', 'utf8').trim() : '?'}`);
console.log('report ' + JSON.stringify(report));
finish();
