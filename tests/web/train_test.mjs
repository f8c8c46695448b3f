// Training live in the page (issue 37): the length lab's "Train your own" and the dream lab's
// "Train a world model" each train a few steps in headless Chromium (stepped across frames,
// the page drawing); the checkpoint is offered as a download (the length lab's is listed
// among its models at once), and its numbers equal those of `poslab-cli lm train` / `wm
// train-lab` run natively with the command the checkpoint records, to float rounding: the
// page's kernels are the generic ones (no AVX2/FMA) and sum in another order, so each weight
// may differ in its last bits, and a few AdamW steps (whose first updates are +-lr per
// weight, sign(grad)) carry such differences along without growing them much:
// max |web - native| <= 1e-4 (the weights are O(0.1), lr 2e-3 and 1.5e-3).
// POSLAB_TRAIN_ONLY=length|dreams runs one of them.
//   node tests/web/train_test.mjs BUILD_WEB_DIR NATIVE_CLI SCREENSHOT_DIR
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { CEILING_MS, check, clickItem, finish, launch, nextFrames, serve, shotDir, status, waitFrames,
         watch, cli } from './lib.mjs';

const STEPS = 10;  // the slider's least
const TOLERANCE = 1e-4;
const report = {};  // the length lab's numbers; .dreams the dream lab's

// {name: Float32Array} and the metadata of a safetensors file's bytes.
function safetensors(buf) {
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.toString('utf8', 8, 8 + n));
  const out = {};
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__' || t.dtype !== 'F32') continue;
    const [a, b] = t.data_offsets;
    const bytes = buf.subarray(8 + n + a, 8 + n + b);
    out[name] = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  }
  return { tensors: out, meta: header.__metadata__ || {} };
}

// A slider set as a user does: Ctrl+click turns it into a text field, then the value, Enter.
async function typeInto(page, match, value, what) {
  const it = (await page.evaluate(() => JSON.parse(Module.UTF8ToString(Module._poslab_web_items()))))
    .find((i) => match(i) && !i.disabled);
  if (!it) throw new Error(`no ${what} on the page`);
  await page.mouse.move(it.x + it.w / 2, it.y + it.h / 2);
  await nextFrames(page, 2);
  await page.keyboard.down('Control');
  await nextFrames(page, 1);
  await page.mouse.down();
  await nextFrames(page, 2);
  await page.mouse.up();
  await nextFrames(page, 1);
  await page.keyboard.up('Control');
  await nextFrames(page, 2);
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyA');
  await page.keyboard.up('Control');
  await nextFrames(page, 1);
  await page.keyboard.type(String(value), { delay: 30 });
  await nextFrames(page, 2);
  await page.keyboard.press('Enter');
  await nextFrames(page, 3);
}

async function lengthTrain(browser, base) {
  const page = await browser.newPage();
  const logs = watch(page);
  try {
    await page.goto(`${base}poslab.html#${encodeURIComponent('length?train=1')}`);
    await waitFrames(page, 5, CEILING_MS);
    await page.evaluate(() => Module._poslab_web_items());  // start recording the items
    await nextFrames(page, 3);
    for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS; await nextFrames(page, 2)) {
      const its = await page.evaluate(() => JSON.parse(Module.UTF8ToString(Module._poslab_web_items())));
      if (its.some((i) => i.label.endsWith('###length.train_steps') && !i.disabled)) break;
    }
    await typeInto(page, (i) => i.label.endsWith('###length.train_steps'), STEPS, 'the training steps slider');
    await page.evaluate(() => Module._poslab_web_reset_longest());
    const t0 = Date.now();
    await clickItem(page, (i) => i.label.endsWith('###length.train_start'), '"Start training"');
    let s = await status(page);
    let sawJob = false;
    for (; Date.now() - t0 < CEILING_MS; await nextFrames(page, 2)) {
      s = await status(page);
      sawJob ||= s.jobs;
      if (sawJob && !s.jobs) break;
    }
    const seconds = (Date.now() - t0) / 1000;
    const dir = `${s.settings.data_dir}/models`;
    const files = await page.evaluate((d) => { try { return Module.FS.readdir(d); } catch (e) { return []; } }, dir);
    const ckpt = files.find((f) => /^own_.*\.safetensors$/.test(f) || /\.safetensors$/.test(f));
    if (!ckpt) throw new Error(`no checkpoint in ${dir} (${files.join(' ')}) ${s.errors.join(' | ')}`);
    const bytes = Buffer.from(await page.evaluate((f) => Array.from(Module.FS.readFile(f)), `${dir}/${ckpt}`));
    const web = safetensors(bytes);
    await page.screenshot({ path: path.join(shotDir, 'length_trained.png') });
    // The download: the button hands the file's bytes to the browser (page.js).
    await clickItem(page, (i) => i.label.endsWith('###length.train_download'), '"Download the checkpoint"');
    const offered = await page.evaluate(() => Module.poslabDownloads || []);
    check('train: the page offers the checkpoint as a download', offered.includes(ckpt), offered.join(' '));
    // Native: the command the checkpoint records, writing beside the screenshots.
    const command = (web.meta.command || '').split('  (')[0];
    const out = path.join(path.dirname(shotDir), 'native_' + ckpt);
    fs.rmSync(out, { force: true });
    fs.rmSync(out.replace(/\.safetensors$/, '.csv'), { force: true });
    const args = command.replace(/^poslab-cli /, '').replace(/ -o .*$/, '').split(' ').concat(['-o', out]);
    const t1 = Date.now();
    execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
    const nativeSeconds = (Date.now() - t1) / 1000;
    const native = safetensors(fs.readFileSync(out));
    let maxAbs = 0, n = 0, missing = [];
    for (const [name, a] of Object.entries(native.tensors)) {
      const b = web.tensors[name];
      if (!b || b.length !== a.length) { missing.push(name); continue; }
      for (let i = 0; i < a.length; ++i) maxAbs = Math.max(maxAbs, Math.abs(a[i] - b[i]));
      n += a.length;
    }
    Object.assign(report, { checkpoint: ckpt, steps: STEPS, numbers: n, max_abs: maxAbs, command,
                            page_seconds: seconds, native_seconds: nativeSeconds,
                            longest_frame_ms: Math.round(s.longest_frame_ms) });
    check(`train: ${STEPS} steps in the page equal poslab-cli lm train's weights (max |diff| <= ${TOLERANCE})`,
          missing.length === 0 && n > 0 && maxAbs <= TOLERANCE,
          `${n} weights, max |diff| ${maxAbs.toExponential(2)}${missing.length ? ', missing ' + missing.join(' ') : ''}`);
    // The longest frame is printed here; frames_test.mjs holds the 250 ms rule for every lab.
    console.log(`train: longest frame while training ${s.longest_frame_ms.toFixed(0)} ms`);
    // Usable at once: the lab lists the new model among its own.
    const stem = ckpt.replace(/\.safetensors$/, '');
    let numbersNow = {};
    for (const t2 = Date.now(); Date.now() - t2 < CEILING_MS; await nextFrames(page, 2)) {
      numbersNow = await page.evaluate(() => JSON.parse(Module.UTF8ToString(Module._poslab_web_numbers())));
      if (JSON.stringify(numbersNow.json || {}).includes(stem)) break;
    }
    const own = JSON.stringify(numbersNow.json || {}).includes(stem);
    check('train: the length lab shows the new model at once', own, numbersNow.why_not || '');
    const errors = s.errors.concat(logs);
    check('train: no error', errors.length === 0, errors.slice(0, 3).join(' | '));
  } catch (e) {
    await page.screenshot({ path: path.join(shotDir, 'length_train_failed.png') }).catch(() => {});
    check('train: runs', false, e.message + (logs.length ? ' | ' + logs.slice(-3).join(' | ') : ''));
  }
  await page.close();
}

// The dream lab's "Train a world model" (tiny, rope, DREAM_EPISODES noisy-expert episodes
// collected in the page, DREAM_STEPS optimiser steps, the last with a validation): every
// tensor of its checkpoint (weights and AdamW moments) against `poslab-cli wm train-lab` run
// with the command the checkpoint records. The page's kernels are the generic build, so the
// same sums round in other places (docs/web.md): the same rule as the length lab's.
const DREAM_STEPS = Number(process.env.POSLAB_DREAM_TRAIN_STEPS || 20);
const DREAM_EPISODES = 8;

async function dreamTrain(browser, base) {
  const page = await browser.newPage();
  const logs = watch(page);
  const r = {};
  report.dreams = r;
  try {
    await page.goto(`${base}poslab.html#${encodeURIComponent('dreams?train=1&play=0&strip=0&attn=0')}`);
    await waitFrames(page, 5, CEILING_MS);
    await page.evaluate(() => Module._poslab_web_items());  // start recording the items
    await nextFrames(page, 3);
    for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS; await nextFrames(page, 2)) {
      const its = await page.evaluate(() => JSON.parse(Module.UTF8ToString(Module._poslab_web_items())));
      if (its.some((i) => i.label.endsWith('###dreams.train_steps') && !i.disabled)) break;
    }
    await typeInto(page, (i) => i.label.endsWith('###dreams.train_steps'), DREAM_STEPS, 'the training steps slider');
    await typeInto(page, (i) => i.label.endsWith('###dreams.train_episodes'), DREAM_EPISODES, 'the episodes slider');
    await page.evaluate(() => Module._poslab_web_reset_longest());
    const t0 = Date.now();
    await clickItem(page, (i) => i.label.endsWith('###dreams.train_start'), '"Start training"');
    // The job's progress: 0 of 0 while it collects, then optimiser steps of the total.
    let s = await status(page);
    let sawJob = false, tTrain = 0, total = 0;
    for (; Date.now() - t0 < CEILING_MS; await nextFrames(page, 1)) {
      s = await status(page);
      sawJob ||= s.jobs;
      for (const [, n] of s.jobs_progress || []) if (n > 0 && !tTrain) tTrain = Date.now(), total = n;
      if (sawJob && !s.jobs) break;
    }
    const tEnd = Date.now();
    if (s.jobs) throw new Error(`still training after ${CEILING_MS} ms`);
    const dir = `${s.settings.data_dir}/models`;
    const files = await page.evaluate((d) => { try { return Module.FS.readdir(d); } catch (e) { return []; } }, dir);
    const ckpt = files.find((f) => /^wm_tiny_rope.*\.safetensors$/.test(f));
    if (!ckpt) throw new Error(`no checkpoint in ${dir} (${files.join(' ')}) ${s.errors.join(' | ')}`);
    const web = safetensors(Buffer.from(await page.evaluate((f) => Array.from(Module.FS.readFile(f)), `${dir}/${ckpt}`)));
    await page.screenshot({ path: path.join(shotDir, 'dreams_trained.png') });
    await clickItem(page, (i) => i.label.endsWith('###dreams.train_download'), '"Download the checkpoint"');
    const offered = await page.evaluate(() => Module.poslabDownloads || []);
    check('dream train: the page offers the checkpoint as a download', offered.includes(ckpt), offered.join(' '));
    // Native: the command the checkpoint records (wm train-lab), writing beside the screenshots.
    const command = web.meta.command || '';
    check('dream train: the checkpoint records the poslab-cli wm train-lab command',
          command.startsWith('poslab-cli wm train-lab ') && command.includes(` --steps ${DREAM_STEPS} `) &&
          command.includes(` --episodes ${DREAM_EPISODES} `), command);
    const out = path.join(path.dirname(shotDir), 'native_dream_' + ckpt);
    fs.rmSync(out, { force: true });
    const args = command.replace(/^poslab-cli /, '').replace(/ -o .*$/, '').split(' ').concat(['-o', out, '--quiet']);
    const nat = JSON.parse(execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 26 }));
    const native = safetensors(fs.readFileSync(out));
    let maxAbs = 0, maxWeights = 0, n = 0;
    const missing = [];
    for (const [name, a] of Object.entries(native.tensors)) {
      const b = web.tensors[name];
      if (!b || b.length !== a.length) { missing.push(name); continue; }
      let m = 0;
      for (let i = 0; i < a.length; ++i) m = Math.max(m, Math.abs(a[i] - b[i]));
      maxAbs = Math.max(maxAbs, m);
      if (!name.startsWith('optim.')) maxWeights = Math.max(maxWeights, m);
      n += a.length;
    }
    for (const name of Object.keys(web.tensors)) if (!(name in native.tensors)) missing.push(name);
    // Speed: optimiser steps per second of training (after the episodes were collected;
    // the last step's validation included in both). The page trains in its frames' job
    // slices, so its wall time also holds the drawing.
    const pageSeconds = (tEnd - tTrain) / 1000;
    Object.assign(r, { checkpoint: ckpt, steps: DREAM_STEPS, episodes: DREAM_EPISODES, tensors: Object.keys(native.tensors).length,
                       numbers: n, max_abs: maxAbs, max_abs_weights: maxWeights, command,
                       page_train_seconds: pageSeconds, page_steps_per_s: total / pageSeconds,
                       native_train_wall_seconds: nat.train_wall_seconds, native_train_cpu_seconds: nat.train_cpu_seconds,
                       native_steps_per_cpu_s: nat.train_steps_per_cpu_s,
                       page_share_of_native: (total / pageSeconds) / nat.train_steps_per_cpu_s,
                       longest_frame_ms: Math.round(s.longest_frame_ms) });
    check(`dream train: ${DREAM_STEPS} steps in the page equal poslab-cli wm train-lab's checkpoint (max |diff| <= ${TOLERANCE})`,
          missing.length === 0 && n > 0 && maxAbs <= TOLERANCE && nat.step === DREAM_STEPS,
          `${n} numbers in ${Object.keys(native.tensors).length} tensors, max |diff| ${maxAbs.toExponential(2)} ` +
          `(weights ${maxWeights.toExponential(2)})${missing.length ? ', missing ' + missing.join(' ') : ''}`);
    console.log(`dream train: ${DREAM_STEPS} steps, max |diff| ${maxAbs.toExponential(2)}, page ${(total / pageSeconds).toFixed(2)} ` +
                `steps/s (wall), native ${nat.train_steps_per_cpu_s.toFixed(2)} steps/CPU-s (1 thread), ` +
                `longest frame ${s.longest_frame_ms.toFixed(0)} ms`);
    const errors = s.errors.concat(logs);
    check('dream train: no error', errors.length === 0, errors.slice(0, 3).join(' | '));
  } catch (e) {
    await page.screenshot({ path: path.join(shotDir, 'dreams_train_failed.png') }).catch(() => {});
    check('dream train: runs', false, e.message + (logs.length ? ' | ' + logs.slice(-3).join(' | ') : ''));
  }
  await page.close();
}

const server = await serve();
const browser = await launch();
try {
  fs.mkdirSync(shotDir, { recursive: true });
  // Case names, comma-separated, to run only those (length, dreams).
  const only = process.env.POSLAB_TRAIN_ONLY ? process.env.POSLAB_TRAIN_ONLY.split(',') : null;
  if (!only || only.includes('length')) await lengthTrain(browser, server.base);
  if (!only || only.includes('dreams')) await dreamTrain(browser, server.base);
} finally {
  await browser.close();
  server.proc.kill();
}
console.log('report ' + JSON.stringify(report));
finish();
