// PosLab's browser tests: the web build (build/web) in headless Chromium (Debian's
// /usr/bin/chromium, WebGL 2 on SwiftShader), driven by puppeteer-core. For each lab: open
// its preset from the page URL, wait for frames, read the lab's numbers through the page's
// exported poslab_web_numbers(), compare them with native poslab-cli's JSON for the same
// command (same keys, numbers within float tolerance), and save a screenshot that must not
// be blank (looked at by people, never compared with a golden image). Prints one line per check, the measurements as JSON, and
// "N passed, N failed".
//   node tests/web/web_test.mjs BUILD_WEB_DIR NATIVE_CLI SCREENSHOT_DIR
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { CEILING_MS, check, cli, clickItem, fetched, finish, items, itemsLast, launch, nextFrames, numbers, pngVaries,
         readFile, repo, serve, shotDir, status, waitFrames, watch, webDir } from './lib.mjs';

const report = { labs: {} };

// The length lab in a state that computes in seconds in the page (its jobs step in frames):
// every model's curves over 2L, one window, and the text and heads views.
const LENGTH_PRESET = 'length?span=2&windows=1&heads_bytes=64';
// Labs and the presets they open with (the page's hash), as a user's link would.
const LABS = [
  ['rope', 'rope?dim=64&base=10000'],
  ['attention', 'attention'],
  ['kv', 'kv'],
  ['arena', 'arena?seed=7'],
  ['dreams', 'dreams'],
  ['lessons', 'lessons'],
  // The length lab's models are not preloaded: fetched when it opens (app/web/web_app.cmake).
  ['length', LENGTH_PRESET],
  // The KV lab on a trained language model (issue 39): it fetches the length lab's models
  // and steps its methods in frames; its numbers equal poslab-cli kv's.
  ['kv', 'kv?weights=trained&model=rope&scenario=stitch', 'kv_trained'],
];

// a and b agree: same keys and types, numbers within tolerance (float32 math in both, but
// the web build has no AVX2/FMA kernels, so sums differ in their last bits). Differ by
// design: "kernel" (which build of the attention kernel ran: "generic" in WebAssembly) and
// files under the page's data folder /poslab (the source tree natively).
const DIFFER_BY_DESIGN = new Set(['kernel']);
const diffStats = { numbers: 0, max_abs: 0, max_rel: 0 };  // over one lab's comparison
function compare(a, b, where = '$') {
  if (typeof a === 'string' && typeof b === 'string' && a.startsWith('/poslab/'))
    return b.endsWith(a.slice('/poslab'.length)) ? null : `${where}: ${a} vs ${b}`;
  if (typeof a === 'number' && typeof b === 'number') {
    const tol = 1e-4 * Math.max(1, Math.abs(a), Math.abs(b));
    const d = Math.abs(a - b);
    diffStats.numbers += 1;
    diffStats.max_abs = Math.max(diffStats.max_abs, d);
    if (d > 0) diffStats.max_rel = Math.max(diffStats.max_rel, d / Math.max(Math.abs(a), Math.abs(b)));
    return Math.abs(a - b) <= tol ? null : `${where}: web ${a} vs native ${b}`;
  }
  if (Array.isArray(a) !== Array.isArray(b) || typeof a !== typeof b) return `${where}: types differ`;
  if (a === null || b === null) return a === b ? null : `${where}: null vs value`;
  if (Array.isArray(a)) {
    if (a.length !== b.length) return `${where}: length ${a.length} vs ${b.length}`;
    for (let i = 0; i < a.length; ++i) {
      const d = compare(a[i], b[i], `${where}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (typeof a === 'object') {
    const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
    if (ka.join() !== kb.join()) return `${where}: keys ${ka} vs ${kb}`;
    for (const k of ka) {
      if (DIFFER_BY_DESIGN.has(k)) continue;
      const d = compare(a[k], b[k], `${where}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return a === b ? null : `${where}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
}

// The length lab fetches its models and held-out text when it opens (not in the first
// load): it shows that it is loading them, then computes; measures what was fetched.
async function lengthModels(page, t0) {
  let n = await numbers(page);
  while (!n.json && Date.now() - t0 < 240000) {
    await nextFrames(page, 2);
    n = await numbers(page);
  }
  const files = (await fetched(page)).filter((e) => /^lm_/.test(e.name));
  report.length_models = { files: files.length, over_the_wire_bytes: files.reduce((a, e) => a + e.transfer, 0),
                           bytes: files.reduce((a, e) => a + e.decoded, 0), ms_to_numbers: Date.now() - t0 };
  const names = files.map((e) => e.name).sort();
  // every shipped language model (assets/models/lm_*.safetensors), and one curve more: the
  // RoPE model under the preset's scaling
  const shipped = fs.readdirSync(path.join(repo, 'assets/models')).filter((f) => /^lm_.*\.safetensors$/.test(f)).length;
  check('length: the models and held-out text are fetched when the lab opens',
        names.includes('lm_held_out.txt') && names.filter((f) => f.endsWith('.safetensors')).length === shipped,
        `${names.length} files, ${(report.length_models.over_the_wire_bytes / 1e6).toFixed(2)} MB over the wire: ${names.join(' ')}`);
  const j = n.json || {};
  check('length: every model loaded and drew its curves', (j.curves || []).length === shipped + 1 && (j.missing || []).length === 0 &&
        (j.text?.bits || []).length > 0, n.json ? `${j.curves.length} curves, missing ${j.missing}` : `no numbers: ${n.why_not}`);
}
// Waits until the user folders are stored in IndexedDB `after` more times than `since`.
async function waitStored(page, since, timeoutMs = CEILING_MS) {
  const t0 = Date.now();
  for (;;) {
    const s = await page.evaluate(() => ({ n: Module.poslabStores || 0, busy: !!Module.poslabStoring }));
    if (s.n > since && !s.busy) return s.n;
    if (Date.now() - t0 > timeoutMs) throw new Error(`settings not stored in IndexedDB after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// A quiz answered through the page, a setting changed from the menu, the page reloaded:
// both kept (IndexedDB under the user folders). Its own browser context: empty storage.
async function quizAndReload(browser, base) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const logs = watch(page);
  const lesson = '01-why-positions';
  try {
    await page.goto(`${base}poslab.html#${encodeURIComponent(`lessons?lesson=${lesson}&view=quiz`)}`);
    await waitFrames(page, 5, CEILING_MS);
    const dirs = (await status(page)).settings;
    const progressFile = `${dirs.data_dir}/progress.json`, settingsFile = `${dirs.config_dir}/settings.json`;
    const answered = (p) => Object.entries(p?.lessons?.[lesson]?.answers || {}).filter(([, a]) => a.answered);
    check('storage: a fresh browser has no answer yet',
          answered(JSON.parse((await readFile(page, progressFile)) || '{}')).length === 0);
    // The first option of the first question, then its "Check answer".
    const stores = await page.evaluate(() => Module.poslabStores);
    await clickItem(page, (i) => i.label === 'A.', 'quiz option "A."');
    await clickItem(page, (i) => i.label === 'Check answer', '"Check answer" button');
    await waitStored(page, stores);
    const progress = JSON.parse((await readFile(page, progressFile)) || '{}');
    const answers = answered(progress);
    const verdict = answers.length === 1 ? answers[0] : null;
    check('quiz: an option clicked in the page and checked is saved as an answer', !!verdict && verdict[1].attempts === 1 &&
          verdict[1].chosen?.length === 1, verdict ? `${verdict[0]}: ${verdict[1].correct ? 'right' : 'wrong'}, chosen ${verdict[1].chosen}` :
          `answers ${JSON.stringify(progress.lessons || null)}`);
    const optionsNow = (await items(page)).filter((i) => i.label === 'A.');
    check('quiz: the answered question shows answered (its options locked)',
          optionsNow.length > 0 && optionsNow[0].disabled,
          JSON.stringify(optionsNow.slice(0, 2)));
    report.quiz = verdict ? { question: verdict[0], correct: verdict[1].correct } : null;
    await page.screenshot({ path: path.join(shotDir, 'quiz_answered.png') });
    // A setting: View > Light theme.
    await clickItem(page, (i) => i.label === 'View', 'View menu');
    await clickItem(page, (i) => i.label === 'Light theme', '"Light theme" menu item');
    check('settings: the menu switched to the light theme', (await status(page)).settings.dark_theme === false);
    // Autosave (every 2 s, idle or not) renames the new file in; that rename starts the store
    // into IndexedDB, which the reload below needs finished. Another store (the quiz's
    // progress) may come first, so wait for the file itself, then for the store.
    let saved = '';
    for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS && !/"dark_theme":\s*false/.test(saved);
      await new Promise((r) => setTimeout(r, 100))) saved = (await readFile(page, settingsFile)) || '';
    await waitStored(page, (await page.evaluate(() => Module.poslabStores)) - 1);
    check('settings: saved atomically in the user folder', /"dark_theme":\s*false/.test(saved));
    // Reload: the in-memory files are gone; IndexedDB brings them back before the app starts.
    await page.reload();
    await waitFrames(page, 5, CEILING_MS);
    const after = await status(page);
    check('reload: the light theme is kept', after.settings.dark_theme === false, `dark_theme ${after.settings.dark_theme}`);
    const progress2 = JSON.parse((await readFile(page, progressFile)) || '{}');
    const kept = verdict && progress2.lessons?.[lesson]?.answers?.[verdict[0]];
    check('reload: the quiz answer is kept', !!kept && kept.answered && kept.correct === verdict[1].correct &&
          JSON.stringify(kept.chosen) === JSON.stringify(verdict[1].chosen));
    const shownAgain = (await items(page)).filter((i) => i.label === 'A.');
    check('reload: the answered question is shown answered', shownAgain.length > 0 && shownAgain[0].disabled,
          JSON.stringify(shownAgain.slice(0, 2)));
    check('storage: no error in the console', logs.length === 0, logs.slice(0, 3).join(' | '));
  } catch (e) {
    check('quiz and reload: runs', false, e.message + (logs.length ? ' | ' + logs.slice(-3).join(' | ') : ''));
  }
  await context.close();
}

// Waits for a downloaded file in `dir` (Chromium writes NAME.crdownload first).
async function waitDownload(dir, name, timeoutMs = CEILING_MS) {
  const t0 = Date.now();
  for (;;) {
    const f = path.join(dir, name);
    if (fs.existsSync(f) && fs.statSync(f).size > 0) return f;
    if (Date.now() - t0 > timeoutMs) throw new Error(`${name} was not downloaded in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// Share in the browser: File > Copy preset link puts a web link on the clipboard; the Share
// popup shows three Download buttons and no desktop paths; they give PNG, CSV and JSON
// downloads; the JSON equals native poslab-cli's numbers for the same command.
async function shareExports(browser, base) {
  const context = await browser.createBrowserContext();
  await context.overridePermissions(base.replace(/\/$/, ''), ['clipboard-read', 'clipboard-write',
                                                              'clipboard-sanitized-write']);
  const page = await context.newPage();
  const logs = watch(page);
  const dir = path.join(path.dirname(shotDir), 'downloads');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  try {
    const cdp = await browser.target().createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dir,
                                                    browserContextId: context.id });
    await page.goto(`${base}poslab.html#${encodeURIComponent('rope?dim=32&base=10000')}`);
    await page.bringToFront();
    await waitFrames(page, 5, CEILING_MS);
    const preset = (await status(page)).preset;
    await clickItem(page, (i) => i.label === 'File', 'File menu');
    await clickItem(page, (i) => i.label === 'Copy preset link', '"Copy preset link"');
    const clip = await page.evaluate(() => navigator.clipboard.readText());
    const want = `${base}poslab.html#${preset}`;
    check('share: Copy preset link gives the page\'s own link', clip === want, `clipboard ${clip}, expected ${want}`);
    await clickItem(page, (i) => i.label === 'File', 'File menu');
    await clickItem(page, (i) => i.label === 'Export and share...', '"Export and share..."');
    const saveButton = async (row) => {  // rows: picture, CSV, JSON (top to bottom)
      const t0 = Date.now();
      for (;;) {
        const saves = (await items(page)).filter((i) => i.label === 'Download').sort((a, b) => a.y - b.y);
        if (saves.length === 3) return clickItem(page, (i) => i.label === 'Download' && i.y === saves[row].y, `Download (row ${row})`);
        if (Date.now() - t0 > CEILING_MS) throw new Error(`the Share popup shows ${saves.length} Download buttons`);
        await nextFrames(page, 1);
      }
    };
    const popup = (await items(page)).filter((i) => i.window.endsWith('###share'));
    const desktopOnly = popup.filter((i) => ['##path', 'Browse...', 'Save'].includes(i.label)).map((i) => i.label);
    check('share: the popup offers downloads only (no paths, no Browse..., no Save)',
          popup.filter((i) => i.label === 'Download').length === 3 && desktopOnly.length === 0,
          `${popup.map((i) => i.label).join(', ')}`);
    await saveButton(2);
    const offered = async (name) => {  // the page offered it (before the browser saves it)
      for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS; await nextFrames(page, 1)) {
        const list = await page.evaluate(() => Module.poslabDownloads || []);
        if (list.includes(name)) return;
      }
      const st = await status(page);
      throw new Error(`the page offered no ${name} (errors: ${st.errors.join(' | ') || 'none'})`);
    };
    await offered('poslab-rope.json');
    const json = JSON.parse(fs.readFileSync(await waitDownload(dir, 'poslab-rope.json'), 'utf8'));
    const n = await numbers(page);
    const native = JSON.parse(execFileSync(cli, n.cli_args, { encoding: 'utf8', maxBuffer: 1 << 28 }));
    const diff = compare(json, native);
    check(`share: the JSON download equals native poslab-cli ${n.cli_args.join(' ')}`, !diff, diff || '');
    await saveButton(1);
    await offered('poslab-rope.csv');
    const csv = fs.readFileSync(await waitDownload(dir, 'poslab-rope.csv'), 'utf8');
    check('share: the CSV download has a header and rows', csv.split('\n').filter(Boolean).length > 2,
          JSON.stringify(csv.slice(0, 60)));
    await saveButton(0);
    await offered('poslab-rope.png');
    await page.screenshot({ path: path.join(shotDir, 'share_popup.png') });
    const png = await waitDownload(dir, 'poslab-rope.png');
    check(`share: the PNG download (RGBA read-back) is a picture, not blank`, pngVaries(png),
          `${fs.statSync(png).size} bytes`);
    const s = await status(page);
    check('share: no error', s.errors.length === 0 && logs.length === 0, s.errors.concat(logs).slice(0, 3).join(' | '));
  } catch (e) {
    check('share: runs', false, e.message + (logs.length ? ' | ' + logs.slice(-3).join(' | ') : ''));
  }
  await context.close();
}

// The first load's size over the wire (gzip from scripts/web_serve.py), without the Chinese
// font; then Chinese chosen from the menu fetches the font and the fonts gain it.
async function firstLoadAndChinese(browser, base) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const logs = watch(page);
  try {
    const t0 = Date.now();
    await page.goto(`${base}poslab.html#lessons`);
    await waitFrames(page, 1, CEILING_MS);
    const firstFrame = Date.now() - t0;
    const load = await fetched(page);
    const wire = load.reduce((a, e) => a + e.transfer, 0), size = load.reduce((a, e) => a + e.decoded, 0);
    report.first_load = { over_the_wire_bytes: wire, uncompressed_bytes: size, first_frame_ms: firstFrame,
                          files: Object.fromEntries(load.map((e) => [e.name, e.transfer])) };
    check('first load: under 3 MB over the wire, no Chinese font, no model',
          wire < 3e6 && !load.some((e) => /wqy|^lm_|^wm_/.test(e.name)),
          `${(wire / 1e6).toFixed(2)} MB over the wire (${(size / 1e6).toFixed(2)} MB uncompressed)`);
    check('first load: files are sent gzip-compressed', wire < 0.8 * size);
    await clickItem(page, (i) => i.label === 'View', 'View menu');
    await clickItem(page, (i) => i.label === 'Language', 'Language menu');
    await clickItem(page, (i) => i.label === '中文', '"中文" menu item');
    const tc = Date.now();
    let s = await status(page);
    while (!s.cjk_font && Date.now() - tc < CEILING_MS) {
      await nextFrames(page, 2);
      s = await status(page);
    }
    const font = (await fetched(page)).find((e) => /wqy/.test(e.name));
    await nextFrames(page, 3);
    await page.screenshot({ path: path.join(shotDir, 'lessons_zh.png') });
    report.chinese_font = font ? { over_the_wire_bytes: font.transfer, bytes: font.decoded, ms: Date.now() - tc } : null;
    check('Chinese: choosing it fetches the font, and the fonts gain it', s.settings.language === 'zh' && s.cjk_font && !!font,
          `${font ? (font.transfer / 1e6).toFixed(2) + ' MB over the wire' : 'not fetched'}, language ${s.settings.language}, ` +
          `font ${s.cjk_font}, page ${await page.evaluate(() => JSON.stringify(Module.poslabFetchErrors))}`);
    check('Chinese: no error', s.errors.length === 0 && logs.length === 0, s.errors.concat(logs).slice(0, 3).join(' | '));
  } catch (e) {
    check('first load and Chinese: runs', false, e.message + (logs.length ? ' | ' + logs.slice(-3).join(' | ') : ''));
  }
  await context.close();
}

// A checkpoint opened with the browser's file picker goes to the same loader: a shipped
// model opens (its info shown, no error); a file that is not one gives one line naming it.
async function checkpointPicker(browser, base) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const logs = watch(page);
  const bad = path.join(path.dirname(shotDir), 'not-a-model.safetensors');
  fs.writeFileSync(bad, 'this is not a safetensors file\n');
  try {
    await page.goto(`${base}poslab.html#dreams`);
    await waitFrames(page, 5, CEILING_MS);
    const open = async (file) => {
      const [chooser] = await Promise.all([
        page.waitForFileChooser({ timeout: CEILING_MS }),
        clickItem(page, (i) => i.label.startsWith('Open a checkpoint...'), '"Open a checkpoint..."'),
      ]);
      await chooser.accept([file]);
      const want = `model=/uploads/${path.basename(file)}`;
      for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS; await nextFrames(page, 2)) {
        const s = await status(page);
        if (s.preset.includes(want) && (s.errors.length || (await numbers(page)).json)) return s;
      }
      throw new Error(`the dream lab did not take ${want}`);
    };
    const good = await open(path.join(repo, 'assets/models/wm_tiny_rope.safetensors'));
    check('checkpoint: one picked in the browser opens in the dream lab', good.errors.length === 0,
          `preset ${good.preset} ${good.errors.join(' | ')}`);
    const wrong = await open(bad);
    const line = wrong.errors.find((e) => e.includes('not-a-model.safetensors')) || '';
    check('checkpoint: a bad file gives the usual one-line error naming it', !!line && !line.includes('\n'), line || wrong.errors.join(' | '));
    check('checkpoint: no error in the console', logs.length === 0, logs.slice(0, 3).join(' | '));
  } catch (e) {
    check('checkpoint: runs', false, e.message + (logs.length ? ' | ' + logs.slice(-3).join(' | ') : ''));
  }
  await context.close();
}

// Median and 90th percentile of the intervals between the page's next 60 animation frames.
const rafTimes = (page) => page.evaluate(() => new Promise((resolve) => {
  const t = [];
  const step = (now) => {
    t.push(now);
    if (t.length < 61) return requestAnimationFrame(step);
    const d = t.slice(1).map((x, i) => x - t[i]).sort((a, b) => a - b);
    resolve({ median_ms: d[d.length >> 1], p90_ms: d[Math.floor(d.length * 0.9)] });
  };
  requestAnimationFrame(step);
}));

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[s.length >> 1] : NaN; };

// core/common/charconv's fallback on the browser's libc writes what std::to_chars writes
// natively (charconv_dump.cpp built both ways, run under node and natively).
function charconvCheck() {
  const dir = path.join(webDir, 'charconv');
  fs.mkdirSync(dir, { recursive: true });
  const src = [path.join(repo, 'tests/web/charconv_dump.cpp'), path.join(repo, 'core/common/charconv.cpp')];
  const flags = ['-std=c++20', '-O1', `-I${repo}`, ...src];
  try {
    execFileSync('c++', [...flags, '-o', path.join(dir, 'native')]);
    execFileSync('em++', [...flags, '-sSINGLE_FILE=1', '-o', path.join(dir, 'web.js')],
                 { env: { ...process.env, NODE_PATH: process.env.NODE_PATH || '/usr/share/nodejs' } });
    const native = execFileSync(path.join(dir, 'native'), { encoding: 'utf8' });
    const web = execFileSync(process.execPath, [path.join(dir, 'web.js')], { encoding: 'utf8' });
    const lines = native.split('\n').length - 1;
    const firstDiff = native.split('\n').findIndex((l, i) => l !== web.split('\n')[i]);
    check(`charconv: the web build writes and reads ${lines} doubles as native std does`,
          native === web && !/ 0$/m.test(web),
          firstDiff >= 0 ? `line ${firstDiff + 1}: native ${native.split('\n')[firstDiff]} web ${web.split('\n')[firstDiff]}` : '');
  } catch (e) {
    check('charconv: the web build writes and reads doubles as native std does', false, e.message.split('\n')[0]);
  }
}

charconvCheck();
const server = await serve();
const browser = await launch();
try {
  fs.mkdirSync(shotDir, { recursive: true });
  for (const f of ['poslab.wasm', 'poslab.data', 'poslab.js', 'poslab.html'])
    report[f.replace('poslab.', '') + '_bytes'] = fs.statSync(path.join(webDir, 'site', f)).size;
  for (const [lab, preset, name = lab] of LABS) {
    const page = await browser.newPage();
    const logs = watch(page);
    const t0 = Date.now();
    try {
      await page.goto(`${server.base}poslab.html#${encodeURIComponent(preset)}`);
      await waitFrames(page, 1, CEILING_MS);
      const firstFrameMs = Date.now() - t0;
      if (lab === 'length') {  // the lab as it opens: its files are being fetched (to look at)
        await page.screenshot({ path: path.join(shotDir, 'length_loading.png') });
        report.length_fetches_at_first_frame = await page.evaluate(() => ({ ...Module.poslabFetches }));
      }
      const s = await waitFrames(page, 30, CEILING_MS);
      if (lab === 'length') await lengthModels(page, t0);
      if (name === 'kv_trained')  // its models arrive, then its methods run a step per frame
        for (let m = await numbers(page); !m.json && Date.now() - t0 < CEILING_MS; m = await numbers(page))
          await nextFrames(page, 2);
      if (lab === 'dreams') {  // its world model is fetched when the lab first needs it
        for (let n = await numbers(page); !n.json && Date.now() - t0 < CEILING_MS; n = await numbers(page))
          await nextFrames(page, 2);
        const wm = (await fetched(page)).filter((e) => /^wm_/.test(e.name));
        report.dreams_model = wm.map((e) => ({ name: e.name, over_the_wire_bytes: e.transfer }));
        check('dreams: its world model is fetched when the lab opens', wm.length >= 1, wm.map((e) => e.name).join(' '));
      }
      const raf = await rafTimes(page);
      const s2 = await status(page);
      const n = await numbers(page);
      const errors = s2.errors.concat(logs);
      report.labs[name] = { preset: s2.preset, first_frame_ms: firstFrameMs, raf, frame_cpu_median_ms:
                           median(s2.frame_ms), cli_args: n.cli_args, why_not: n.why_not };
      check(`${name}: opened from the URL`, s.lab === lab, `active lab ${s.lab}, preset ${s2.preset}`);
      check(`${name}: no error`, errors.length === 0, errors.slice(0, 3).join(' | '));
      if (name === 'kv_trained')
        check('kv_trained: the page computed the trained scenario', !!n.json && n.cli_args.length > 0, n.why_not || '');
      if (n.json && n.cli_args.length) {
        let native = null, why = '';
        try {
          native = JSON.parse(execFileSync(cli, n.cli_args, { encoding: 'utf8', maxBuffer: 1 << 28 }));
        } catch (e) {
          why = `poslab-cli ${n.cli_args.join(' ')}: ${e.message.split('\n')[0]}`;
        }
        Object.assign(diffStats, { numbers: 0, max_abs: 0, max_rel: 0 });
        const diff = native ? compare(n.json, native) : why;
        report.labs[name].web_vs_native = { ...diffStats };
        check(`${name}: numbers equal native poslab-cli ${n.cli_args.join(' ')}`, !diff, diff || '');
        report.labs[name].numbers_compared = !diff;
      } else {
        console.log(`note ${name}: no numbers to compare (${n.why_not || 'no poslab-cli command'})`);
      }
      if (lab === 'rope') {
        // A new link in the same page (hashchange): the lab follows, and its numbers too.
        await page.evaluate(() => { location.hash = 'rope?dim=32&base=500000'; });
        const f = (await status(page)).frames;
        await waitFrames(page, f + 5, CEILING_MS);
        const m = await numbers(page);
        const native = JSON.parse(execFileSync(cli, m.cli_args, { encoding: 'utf8' }));
        const diff = compare(m.json, native);
        const opened = /dim=32/.test(m.preset) && /base=(500000|5e\+05)(&|$)/.test(m.preset);
        check('rope: a changed URL hash reopens the lab in that state', opened && !diff,
              `preset ${m.preset} ${diff || ''}`);
      }
      const shot = path.join(shotDir, `${name}.png`);
      await page.screenshot({ path: shot });
      check(`${name}: screenshot ${shot} not blank`, pngVaries(shot));
    } catch (e) {
      check(`${name}: loads and draws`, false, e.message + (logs.length ? ' | ' + logs.slice(-3).join(' | ') : ''));
    }
    await page.close();
  }
  await quizAndReload(browser, server.base);
  await shareExports(browser, server.base);
  await firstLoadAndChinese(browser, server.base);
  await checkpointPicker(browser, server.base);
} finally {
  await browser.close();
  server.proc.kill();
}
console.log('report ' + JSON.stringify(report));
finish();
