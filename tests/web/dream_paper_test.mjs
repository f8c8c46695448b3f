// Both shipped world-model sizes dream in the page as natively (tests/web/run.sh runs it):
// the dream lab opened with size=tiny and size=paper dreams its 96 steps, and each step is
// compared with native poslab-cli `wm dream --preset` for the same session, by the rule
// below (docs/web.md, "Dreams in the browser").
//   node tests/web/dream_paper_test.mjs BUILD_WEB_DIR NATIVE_CLI SCREENSHOT_DIR
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { CEILING_MS, check, cli, finish, launch, nextFrames, numbers, serve, shotDir, status, waitFrames,
         watch } from './lib.mjs';

// The rule, and why: a closed-loop dream feeds each predicted state back in, so a float
// rounding difference (WebAssembly has no FMA, and Eigen's products sum in another order there
// than natively with AVX2+FMA) can be amplified step by step: on the paper-size model it stays
// at rounding level (< 3e-6) to step 48, then grows 20-60x every 16 steps, to 5e-3. So the
// first TIGHT_STEPS dream steps must agree to float rounding (1e-5, relative to max(1, |x|)),
// every later step within LOOSE_ABS, and the real trajectory (the simulator, which the model
// does not steer), the baselines and every field that is not a dreamt number at every step.
// Past the tight steps, a dreamt value that crosses 0.5 can snap a bit (alive, team, fired)
// the other way, and the counts of the curves (ships, present, agree) follow it: rounding
// amplified across a threshold, after which the two dreams are different trajectories (a
// shot fired in one and not the other changes power and health from then on). So the loose
// bound holds up to the first such flip; the steps after it are printed, not compared.
const HORIZON = 96;       // the lab's default dream length
const TIGHT = 1e-5;       // float rounding, relative to max(1, |x|)
const TIGHT_STEPS = 32;   // measured: first over 1e-5 at step 42 (tiny, 1.05e-5) and 44 to 59 (paper)
const LOOSE_ABS = 0.05;   // ten times the largest difference measured (5.0e-3, paper-size)
const report = { sizes: {} };

// Largest |a - b| / max(1, |a|, |b|) over two nested arrays of numbers (null: shapes differ).
function maxDiff(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) / Math.max(1, Math.abs(a), Math.abs(b));
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return null;
  let m = 0;
  for (let i = 0; i < a.length; ++i) {
    const d = maxDiff(a[i], b[i]);
    if (d === null) return null;
    m = Math.max(m, d);
  }
  return m;
}
// The same for one step's record of per-step error curves (objects of numbers).
function maxDiffObject(a, b) {
  const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
  if (ka.join() !== kb.join()) return null;
  return ka.reduce((m, k) => { const d = maxDiff(a[k], b[k]); return d === null || m === null ? null : Math.max(m, d); }, 0);
}
// The same over the continuous numbers only: a frame's per-ship states without the snapped
// bits, and a curve record without its counts.
const SNAPPED = new Set([0, 1, 12]);  // alive, team, fired (core/bnb's token layout)
const COUNTS = new Set(['ships', 'present', 'agree', 'alive_agree']);
const continuousFrame = (f) => f.map((ship) => ship.filter((_, i) => !SNAPPED.has(i)));
const continuousCurve = (r) => Object.fromEntries(Object.entries(r).filter(([k]) => !COUNTS.has(k)));
// JSON with sorted keys (the page and poslab-cli write them in different orders).
const sorted = (o) => JSON.stringify(Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))));

async function dream(browser, base, size) {
  const page = await browser.newPage();
  const logs = watch(page);
  const preset = `dreams?size=${size}&speed=16&horizon=${HORIZON}`;
  try {
    await page.goto(`${base}poslab.html#${encodeURIComponent(preset)}`);
    await waitFrames(page, 2, CEILING_MS);
    let n = await numbers(page);
    // Until the model is read (the paper-size one is fetched first: the lab dreams without it
    // meanwhile, with no command to compare) and the dream has all its steps.
    const done = (m) => m.json && m.json.steps >= HORIZON && m.cli_args.length > 0;
    for (const t0 = Date.now(); !done(n) && Date.now() - t0 < CEILING_MS; n = await numbers(page))
      await nextFrames(page, 2);
    if (!n.json || n.json.steps < HORIZON || !n.cli_args.length)
      throw new Error(`no ${HORIZON}-step dream to compare: ${n.why_not || ''} ${n.json?.steps} steps, ${n.json?.model}`);
    await page.screenshot({ path: path.join(shotDir, `dreams_${size}.png`) });
    const web = n.json;
    const native = JSON.parse(execFileSync(cli, n.cli_args, { encoding: 'utf8', maxBuffer: 1 << 28 }));
    // Per dream step k: the dreamt states (frame k + 1; frame 0 is the start state) and the
    // step's error curve.
    const perStep = [], continuous = [];
    let firstFlip = web.steps;  // the first dream step where a snapped bit or a count differs
    for (let k = 0; k < web.steps; ++k) {
      const d1 = maxDiff(web.dreamt[k + 1], native.dreamt[k + 1]);
      const d2 = maxDiffObject(web.curves.dream[k], native.curves.dream[k]);
      perStep.push(d1 === null || d2 === null ? null : Math.max(d1, d2));
      let c1 = null, c2 = null;
      try {
        c1 = maxDiff(continuousFrame(web.dreamt[k + 1]), continuousFrame(native.dreamt[k + 1]));
        c2 = maxDiffObject(continuousCurve(web.curves.dream[k]), continuousCurve(native.curves.dream[k]));
      } catch (e) { /* a frame of another shape: null, which fails below */ }
      continuous.push(c1 === null || c2 === null ? null : Math.max(c1, c2));
      // a discrete difference: the whole record differs by more than its continuous part can
      if (firstFlip === web.steps && perStep[k] !== null && continuous[k] !== null &&
          perStep[k] > Math.max(continuous[k], LOOSE_ABS)) firstFlip = k;
    }
    const fmt = (x) => (x === null ? 'shape' : x.toExponential(1));
    const firstOver = perStep.findIndex((d) => d === null || d > TIGHT);
    report.sizes[size] = { steps: web.steps, model: web.model, max_diff_at_step: Object.fromEntries(
      [0, 8, 16, 32, 48, 64, 80, 95].filter((k) => k < perStep.length).map((k) => [k, perStep[k]])),
      first_step_over_tight: firstOver, max_diff: Math.max(...perStep) };
    console.log(`note ${size}: largest difference per dream step (0, 8, ..., 95): ` +
                Object.values(report.sizes[size].max_diff_at_step).map(fmt).join(' '));
    check(`${size}: ${web.model}: the page dreamt ${HORIZON} steps, as native ${n.cli_args.join(' ')}`,
          native.steps === web.steps && native.start === web.start && native.dreamt.length === web.dreamt.length,
          `web ${web.steps} steps from ${web.start}, native ${native.steps} from ${native.start}`);
    const rest = (o) => Object.fromEntries(Object.entries(o).filter(([k]) => !['dreamt', 'curves', 'real', 'checkpoint'].includes(k)));
    // The baselines' curves (copy the last state, constant velocity) follow the real trajectory.
    const baselines = (o) => Object.keys(o.curves).filter((k) => k !== 'dream').sort()
      .map((k) => o.curves[k].map((r) => Object.keys(r).sort().map((f) => r[f])));
    check(`${size}: everything but the dreamt numbers is the same`,
          sorted(rest(web)) === sorted(rest(native)) && web.checkpoint.endsWith(native.checkpoint.split('/').pop()),
          `${sorted(rest(web)).slice(0, 200)} vs ${sorted(rest(native)).slice(0, 200)}`);
    const realDiff = maxDiff(web.real, native.real);
    const baseDiff = maxDiff(baselines(web), baselines(native));
    check(`${size}: the real trajectory (the simulator) and the baselines' errors equal native at every step (${TIGHT})`,
          realDiff !== null && realDiff <= TIGHT && baseDiff !== null && baseDiff <= TIGHT, `${fmt(realDiff)}, ${fmt(baseDiff)}`);
    const tight = perStep.slice(0, TIGHT_STEPS);
    check(`${size}: dream steps 0-${TIGHT_STEPS - 1} equal native to float rounding (${TIGHT})`,
          tight.every((d) => d !== null && d <= TIGHT), `largest ${fmt(Math.max(...tight))}`);
    const startDiff = maxDiff(web.dreamt[0], native.dreamt[0]);
    check(`${size}: the dream's start state is the same`, startDiff !== null && startDiff <= TIGHT, fmt(startDiff));
    const loose = continuous.slice(TIGHT_STEPS, firstFlip);
    console.log(`note ${size}: first dream step where a snapped bit or a count differs: ` +
                (firstFlip < web.steps ? `${firstFlip}; largest difference after it ${fmt(Math.max(...perStep.slice(firstFlip)))}` : 'none'));
    report.sizes[size].first_discrete_flip = firstFlip < web.steps ? firstFlip : null;
    check(`${size}: dream steps ${TIGHT_STEPS}-${firstFlip - 1}: within ${LOOSE_ABS} of native (chaotic growth of rounding, up to the first flipped bit)`,
          firstFlip > TIGHT_STEPS && loose.every((d) => d !== null && d <= LOOSE_ABS),
          `largest ${fmt(Math.max(0, ...loose))}, first over ${TIGHT} at step ${firstOver}`);
    const s = await status(page);
    check(`${size}: no error`, s.errors.length === 0 && logs.length === 0, s.errors.concat(logs).slice(0, 3).join(' | '));
  } catch (e) {
    check(`${size}: dreams in the page`, false, e.message + (logs.length ? ' | ' + logs.slice(-3).join(' | ') : ''));
  }
  await page.close();
}

const server = await serve();
const browser = await launch();
try {
  fs.mkdirSync(shotDir, { recursive: true });
  for (const size of ['tiny', 'paper']) await dream(browser, server.base, size);
} finally {
  await browser.close();
  server.proc.kill();
}
console.log('report ' + JSON.stringify(report));
finish();
