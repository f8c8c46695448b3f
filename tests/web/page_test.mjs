// PosLab's page as a web app, in headless Chromium (tests/web/run.sh runs it after
// web_test.mjs): the wheel scrolls as a browser's does, the canvas follows the window at
// devicePixelRatio (screenshots at DPR 1 and 2 and at the screen's size, to look at), the page
// idles when still (frames counted over 3 s of no input, Chromium's CPU time reported), a
// browser without WebGL 2 gets a message in the page, and no request fails (favicon).
//   node tests/web/page_test.mjs BUILD_WEB_DIR NATIVE_CLI SCREENSHOT_DIR
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { CEILING_MS, check, clickItem, fetched, finish, items, launch, serve, shotDir, status, waitFrames, watch,
         webDir } from './lib.mjs';

const report = {};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const canvasSize = (page) => page.evaluate(() => ({ w: Module.canvas.width, h: Module.canvas.height,
                                                    cssW: Module.canvas.clientWidth, cssH: Module.canvas.clientHeight }));
// Frames drawn since `since` once the page has drawn them, without asking for any: a resize
// or input must wake an idle page by itself.
const framesAfter = (page, since, n = 2) => waitFrames(page, since + n, CEILING_MS, { ask: false });

// One notch of the wheel over a lesson's text scrolls it down by about three lines.
async function wheel(browser, base) {
  const page = await browser.newPage();
  const logs = watch(page);
  try {
    await page.goto(`${base}poslab.html#${encodeURIComponent('lessons?lesson=01-why-positions')}`);
    await waitFrames(page, 10, CEILING_MS);
    // Over the lesson's text (the left pane), where nothing else takes the wheel.
    const box = await canvasSize(page);
    await page.mouse.move(box.cssW * 0.3, box.cssH * 0.6);
    await waitFrames(page, (await status(page)).frames + 3, CEILING_MS);
    const before = await items(page);
    const s0 = await status(page);
    await page.mouse.wheel({ deltaY: 100 });  // one notch down, as Chromium sends it (100 px)
    await framesAfter(page, s0.frames, 2);
    const after = await items(page);
    const line = (await status(page)).line_px || 0;
    // How far the lesson's items moved up (the same items before and after, median).
    const shifts = before.map((b) => {
      const a = after.find((i) => i.label === b.label && i.window === b.window && Math.abs(i.x - b.x) < 0.5);
      return a && b.x < box.cssW * 0.55 && b.y > 150 ? b.y - a.y : null;
    }).filter((d) => d !== null).sort((p, q) => p - q);
    const scrolled = shifts.length ? shifts[shifts.length >> 1] : 0;
    report.wheel = { scrolled_css_px: scrolled, line_css_px: line, items: shifts.length };
    check('wheel: one notch down scrolls the lesson down by about three lines',
          line > 0 && scrolled > 0 && Math.abs(scrolled - 3 * line) <= 0.6 * line,
          `scrolled ${scrolled} CSS px (median of ${shifts.length} items), a text line is ${line} px`);
    await page.screenshot({ path: path.join(shotDir, 'lesson_wheel.png') });
    check('wheel: no error in the console', logs.length === 0, logs.slice(0, 3).join(' | '));
  } catch (e) {
    check('wheel: runs', false, e.message + (logs.length ? ' | ' + logs.slice(-3).join(' | ') : ''));
  }
  await page.close();
}

// The canvas at devicePixelRatio 1 and 2 (its pixels = CSS size x ratio, the fonts drawn at
// the ratio: crisp text), after a resize, and as large as the screen (no fullscreen request).
async function canvasFollows(browser, base) {
  const fontPx = {};
  for (const dpr of [1, 2]) {
    const page = await browser.newPage();
    const logs = watch(page);
    page.on('console', (m) => { if (/fullscreen/i.test(m.text())) logs.push(m.text()); });
    try {
      await page.setViewport({ width: 1000, height: 640, deviceScaleFactor: dpr });
      await page.goto(`${base}poslab.html#${encodeURIComponent('rope?dim=64&base=10000')}`);
      const s = await waitFrames(page, 10, CEILING_MS);
      const c = await canvasSize(page);
      fontPx[dpr] = s.font_px;
      const shot = path.join(shotDir, `rope_dpr${dpr}.png`);
      await page.screenshot({ path: shot });
      check(`DPR ${dpr}: the canvas has ${dpr} x its CSS size in pixels`, c.w === dpr * c.cssW && c.h === dpr * c.cssH,
            `canvas ${c.w}x${c.h} for ${c.cssW}x${c.cssH} CSS px (${shot})`);
      if (dpr === 2)
        check('DPR 2: the fonts are drawn at twice the size (crisp, not upscaled)', s.font_px > 0 && s.font_px === 2 * fontPx[1],
              `font ${s.font_px} device px at DPR 2, ${fontPx[1]} at DPR 1`);
      // The window resized: the canvas follows by itself (the resize wakes an idle page).
      const f = (await status(page)).frames;
      await page.setViewport({ width: 760, height: 520, deviceScaleFactor: dpr });
      await framesAfter(page, f);
      const r = await canvasSize(page);
      check(`DPR ${dpr}: after a resize the canvas follows`, r.cssW === 760 && r.w === dpr * 760 && r.h === dpr * 520,
            `canvas ${r.w}x${r.h} for ${r.cssW}x${r.cssH} CSS px`);
      if (dpr === 1) {
        // As large as the screen (a maximised window, fullscreen): filled, and no request.
        const scr = await page.evaluate(() => ({ width: screen.width, height: screen.height }));
        const g = (await status(page)).frames;
        await page.setViewport({ ...scr, deviceScaleFactor: 1 });
        await framesAfter(page, g, 2);
        const full = await canvasSize(page);
        // Fullscreen at the size the window already has is no resize, so nothing wakes the page:
        // wait for the browser's answer, then for frames asked as input would (waiting for
        // frames that nothing asks for held this test for the whole ceiling, 180 s).
        await page.evaluate(() => document.documentElement.requestFullscreen().catch(() => {}));
        for (let t0 = Date.now(); Date.now() - t0 < 10000 && !(await page.evaluate(() => !!document.fullscreenElement));)
          await sleep(50);
        await waitFrames(page, (await status(page)).frames + 2, CEILING_MS);
        const fs1 = await page.evaluate(() => !!document.fullscreenElement);
        const fsc = await canvasSize(page);
        const shot2 = path.join(shotDir, 'rope_fullscreen.png');
        await page.screenshot({ path: shot2 });
        report.screen = { ...scr, fullscreen: fs1, canvas: [fsc.w, fsc.h] };
        check('a window as large as the screen: the canvas fills it, nothing asks for fullscreen',
              full.w === scr.width && full.h === scr.height && fsc.w === fsc.cssW && fsc.h === fsc.cssH && logs.length === 0,
              `screen ${scr.width}x${scr.height}, canvas ${full.w}x${full.h}; fullscreen ${fs1}: ${fsc.w}x${fsc.h} (${shot2}) ${logs.slice(0, 2).join(' | ')}`);
      }
      check(`DPR ${dpr}: no error in the console`, logs.length === 0, logs.slice(0, 3).join(' | '));
    } catch (e) {
      check(`DPR ${dpr}: runs`, false, e.message + (logs.length ? ' | ' + logs.slice(-3).join(' | ') : ''));
    }
    await page.close();
  }
}

// CPU seconds of Chromium's processes (browser, renderers, GPU: the whole tree) so far.
function chromiumCpuSeconds(rootPid) {
  const procs = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');  // from field 3 (state) on
      procs.push({ pid: +d, ppid: +f[1], ticks: +f[11] + +f[12] });
    } catch { /* gone */ }
  }
  const tree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of procs) if (!tree.has(p.pid) && tree.has(p.ppid)) { tree.add(p.pid); grew = true; }
  }
  return procs.filter((p) => tree.has(p.pid)).reduce((a, p) => a + p.ticks, 0) / 100;  // USER_HZ
}

// Still: with no input for 3 s a lab draws (almost) no frame, and Chromium's CPU time is
// small; the next input brings the frames back.
async function idle(browser, base, lab, preset) {
  const page = await browser.newPage();
  const logs = watch(page);
  try {
    await page.goto(`${base}poslab.html#${encodeURIComponent(preset)}`);
    await waitFrames(page, 10, CEILING_MS);
    // Settled: the frames the app asks for after opening (and any fetch) are drawn.
    for (let t0 = Date.now(), last = -1; Date.now() - t0 < CEILING_MS; await sleep(500)) {
      const f = (await status(page)).frames;
      if (f === last) break;
      last = f;
    }
    const f0 = (await status(page)).frames, cpu0 = chromiumCpuSeconds(browser.process().pid), t0 = Date.now();
    await sleep(3000);  // the measurement's window, not a wait for a state
    const f1 = (await status(page)).frames, cpu1 = chromiumCpuSeconds(browser.process().pid);
    const seconds = (Date.now() - t0) / 1000;
    const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    report.idle = report.idle || {};
    report.idle[lab] = { frames: f1 - f0, seconds, chromium_cpu_percent: +(100 * (cpu1 - cpu0) / seconds).toFixed(1),
                         load_average: +load };
    check(`idle ${lab}: no frame drawn over 3 s without input`, f1 - f0 <= 1,
          `${f1 - f0} frames in ${seconds.toFixed(1)} s; Chromium used ${report.idle[lab].chromium_cpu_percent} % of a core (load ${load})`);
    // The next input: frames again, at once.
    await page.mouse.move(300, 200);
    await page.mouse.move(320, 210);
    const s = await framesAfter(page, f1, 2);
    check(`idle ${lab}: the next input draws again`, s.frames >= f1 + 2, `${s.frames - f1} frames after the input`);
    check(`idle ${lab}: no error in the console`, logs.length === 0, logs.slice(0, 3).join(' | '));
  } catch (e) {
    check(`idle ${lab}: runs`, false, e.message + (logs.length ? ' | ' + logs.slice(-3).join(' | ') : ''));
  }
  await page.close();
}

// Without WebGL 2 the page says so in the page (not only in the console).
async function noWebGL(base) {
  const browser = await launch(['--disable-webgl', '--disable-webgl2', '--disable-3d-apis']);
  try {
    const page = await browser.newPage();
    await page.goto(`${base}poslab.html#rope`);
    let text = '';
    for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS && !/WebGL 2/.test(text); await sleep(200))
      text = await page.evaluate(() => document.body.innerText);
    const visible = await page.evaluate(() => {
      const e = document.getElementById('poslab-error');
      return !!e && e.offsetHeight > 0 && getComputedStyle(e).visibility !== 'hidden';
    });
    await page.screenshot({ path: path.join(shotDir, 'no_webgl2.png') });
    check('no WebGL 2: the page shows why it cannot run', /WebGL 2/.test(text) && visible, JSON.stringify(text.slice(0, 160)));
  } catch (e) {
    check('no WebGL 2: runs', false, e.message);
  }
  await browser.close();
}

// The first visit requests nothing that fails (the favicon among them).
async function noFailedRequest(browser, base) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const logs = watch(page);
  const asked = [];
  page.on('request', (r) => asked.push(r.url().split('/').pop()));
  try {
    await page.goto(`${base}poslab.html#rope`);
    await waitFrames(page, 10, CEILING_MS);
    // The browser asks for the page's icon after the load (favicon.ico when the page names none).
    for (let t0 = Date.now(); Date.now() - t0 < 10000 && !asked.some((u) => /favicon/.test(u)); await sleep(100));
    check('first visit: no request fails and nothing goes to the console as an error', logs.length === 0,
          `${asked.length} requests (${asked.filter((u) => /favicon|icon/.test(u)).join(', ') || 'no icon'}) ${logs.slice(0, 3).join(' | ')}`);
  } catch (e) {
    check('first visit: runs', false, e.message);
  }
  await context.close();
}

// A reload asks whether the page's files changed and gets 304 (ETag, Last-Modified) instead
// of downloading them again.
async function reloadRevalidates(browser, base) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const logs = watch(page);
  try {
    await page.goto(`${base}poslab.html#rope`);
    await waitFrames(page, 5, CEILING_MS);
    const answers = {};
    page.on('response', (r) => {
      const name = r.url().split('/').pop().split('#')[0];
      if (/^poslab\./.test(name)) answers[name] = r.status();
    });
    await page.reload();
    await waitFrames(page, 5, CEILING_MS);
    const wire = (await fetched(page)).reduce((a, e) => a + e.transfer, 0);
    report.reload = { answers, over_the_wire_bytes: wire };
    const names = ['poslab.html', 'poslab.js', 'poslab.wasm', 'poslab.data'];
    check('reload: the page\'s files are revalidated (304), not downloaded again',
          names.every((n) => answers[n] === 304) && logs.length === 0,
          `${JSON.stringify(answers)}, ${(wire / 1e3).toFixed(1)} kB over the wire ${logs.slice(0, 2).join(' | ')}`);
  } catch (e) {
    check('reload: runs', false, e.message);
  }
  await context.close();
}

// Back undoes a lab change: another lab is a new history entry, its settings are not.
async function backUndoesLabChange(browser, base) {
  const page = await browser.newPage();
  const logs = watch(page);
  try {
    await page.goto(`${base}poslab.html#${encodeURIComponent('rope?dim=32&base=10000')}`);
    await waitFrames(page, 5, CEILING_MS);
    const before = await status(page);
    const length0 = await page.evaluate(() => history.length);
    await clickItem(page, (i) => i.label === 'Labs', 'the Labs menu');
    const tab = await clickItem(page, (i) => /^KV cache/.test(i.label), 'the KV cache lab in the Labs menu');
    await waitFrames(page, (await status(page)).frames + 3, CEILING_MS);
    const moved = await status(page);
    const length1 = await page.evaluate(() => history.length);
    await page.goBack();
    await waitFrames(page, (await status(page)).frames + 3, CEILING_MS);
    const back = await status(page);
    const hash = await page.evaluate(() => decodeURIComponent(location.hash.slice(1)));
    check('Back: undoes a lab change (one history entry per lab change)',
          moved.lab !== before.lab && length1 === length0 + 1 && back.lab === before.lab && back.preset === before.preset &&
          hash === before.preset && logs.length === 0,
          `${before.lab} -> ${moved.lab} (clicked ${tab.label}, history ${length0} -> ${length1}) -> Back: ${back.lab}, ` +
          `address ${hash} ${logs.slice(0, 2).join(' | ')}`);
  } catch (e) {
    check('Back: runs', false, e.message + (logs.length ? ' | ' + logs.slice(-3).join(' | ') : ''));
  }
  await page.close();
}

// The build's site folder holds exactly the site's files (the tarball the same), and the
// server serves that folder only.
async function siteFolder(base) {
  const site = path.join(webDir, 'site');
  const files = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }))
      e.isDirectory() ? walk(path.join(d, e.name)) : files.push(path.relative(site, path.join(d, e.name)));
  };
  walk(site);
  const allowed = /^(poslab\.(html|js|wasm|data)|favicon\.svg|README\.md|assets\/models\/(lm_|wm_)[a-z0-9_]+\.(safetensors|txt)|fonts\/[a-z-]+\.ttc|fortunes\/[a-z0-9]+)$/;
  const stray = files.filter((f) => !allowed.test(f));
  const tar = path.join(webDir, 'poslab-site.tar.gz');
  const inTar = fs.existsSync(tar) ? execFileSync('tar', ['tzf', tar], { encoding: 'utf8' }).split('\n')
    .filter((f) => f && !f.endsWith('/')).map((f) => f.replace(/^site\//, '')).sort() : [];
  const outside = await fetch(`${base}../CMakeCache.txt`).then((r) => r.status).catch(() => 'refused');
  const node = await fetch(`${base}node/package.json`).then((r) => r.status).catch(() => 'refused');
  report.site = { files: files.length, bytes: files.reduce((a, f) => a + fs.statSync(path.join(site, f)).size, 0),
                  tarball_bytes: fs.existsSync(tar) ? fs.statSync(tar).size : 0 };
  check('site: one folder with exactly the site\'s files, the tarball the same, nothing else served',
        stray.length === 0 && files.includes('poslab.html') && files.includes('README.md') &&
        JSON.stringify(inTar) === JSON.stringify([...files].sort()) && outside === 404 && node === 404,
        `${files.length} files, stray: ${stray.slice(0, 5).join(' ') || 'none'}, tarball ${inTar.length} files, ` +
        `build files answered ${outside} and ${node}`);
}

// Controls that cannot work in a page are one line there: no dataset path, Browse... or
// recorder path (the line itself is in the screenshots).
async function honestControls(browser, base) {
  const page = await browser.newPage();
  const logs = watch(page);
  const pretend = /Browse\.\.\.|##dream_file$|##path$|^##file$|recorder\.record$/;
  try {
    const found = {};
    for (const preset of ['dreams?start=file&file=data.h5', 'arena?seed=7']) {
      await page.goto(`${base}poslab.html#${encodeURIComponent(preset)}`);
      await page.reload();  // a hash-only goto keeps the page: load the preset afresh
      await waitFrames(page, 10, CEILING_MS);
      found[preset] = (await items(page)).filter((i) => pretend.test(i.label)).map((i) => i.label);
      await page.screenshot({ path: path.join(shotDir, `desktop_only_${preset.split('?')[0]}.png`) });
    }
    check('desktop-only controls: datasets and recording are one line in the page, no path or Browse...',
          Object.values(found).every((l) => l.length === 0) && logs.length === 0,
          `${JSON.stringify(found)} ${logs.slice(0, 2).join(' | ')}`);
  } catch (e) {
    check('desktop-only controls: runs', false, e.message);
  }
  await page.close();
}

// Paste reads the browser's clipboard (navigator.clipboard.readText) when allowed, and says
// why in one line when the browser refuses.
async function paste(browser, base) {
  for (const allowed of [true, false]) {
    const context = await browser.createBrowserContext();
    if (allowed) await context.overridePermissions(base.replace(/\/$/, ''), ['clipboard-read', 'clipboard-write',
                                                                           'clipboard-sanitized-write']);
    const page = await context.newPage();
    const logs = watch(page);
    try {
      await page.goto(`${base}poslab.html#${encodeURIComponent('rope?dim=64&base=10000')}`);
      await page.bringToFront();
      await waitFrames(page, 5, CEILING_MS);
      if (allowed) await page.evaluate(() => navigator.clipboard.writeText('rope?dim=16&base=777'));
      await clickItem(page, (i) => /^Paste(##|$)/.test(i.label), '"Paste" button');
      let s = await status(page);
      for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS && (allowed ? !/dim=16/.test(s.preset) : !s.errors.length);
        s = await status(page)) await waitFrames(page, s.frames + 2, CEILING_MS);
      if (allowed)
        check('Paste: reads the browser\'s clipboard and opens the preset', /dim=16/.test(s.preset) && /base=777/.test(s.preset) &&
              s.errors.length === 0 && logs.length === 0, `preset ${s.preset} ${s.errors.concat(logs).slice(0, 2).join(' | ')}`);
      else
        check('Paste: a refused clipboard is one line saying why (no parse error)',
              s.errors.length === 1 && /clipboard/.test(s.errors[0]) && !s.errors[0].includes('\n') && /dim=64/.test(s.preset),
              s.errors.join(' | ') || 'no message');
    } catch (e) {
      check(`Paste (${allowed ? 'allowed' : 'refused'}): runs`, false, e.message);
    }
    await context.close();
  }
}

// The lessons' Chinese switch works in the page: chosen, it fetches the font and shows Chinese.
async function lessonsChinese(browser, base) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const logs = watch(page);
  try {
    await page.goto(`${base}poslab.html#${encodeURIComponent('lessons?lesson=01-why-positions')}`);
    await waitFrames(page, 5, CEILING_MS);
    await clickItem(page, (i) => i.label === 'Chinese' || i.label === '中文', 'the lessons\' Chinese switch');
    let s = await status(page);
    for (let t0 = Date.now(); Date.now() - t0 < CEILING_MS && !s.cjk_font; s = await status(page))
      await waitFrames(page, s.frames + 2, CEILING_MS);
    await waitFrames(page, s.frames + 3, CEILING_MS);
    await page.screenshot({ path: path.join(shotDir, 'lessons_chinese_switch.png') });
    check('lessons: the Chinese switch fetches the font and shows the lesson in Chinese',
          s.cjk_font && /lang=zh/.test(s.preset) && logs.length === 0 && s.errors.length === 0,
          `font ${s.cjk_font}, preset ${s.preset} ${s.errors.concat(logs).slice(0, 2).join(' | ')}`);
  } catch (e) {
    check('lessons Chinese: runs', false, e.message);
  }
  await context.close();
}

const server = await serve();
const browser = await launch();
try {
  fs.mkdirSync(shotDir, { recursive: true });
  await wheel(browser, server.base);
  await canvasFollows(browser, server.base);
  await idle(browser, server.base, 'rope', 'rope?dim=64&base=10000');
  await idle(browser, server.base, 'lessons', 'lessons?lesson=01-why-positions');
  // A dream that reached its horizon stops drawing too (it drew at full rate before).
  await idle(browser, server.base, 'dreams', 'dreams');
  await noFailedRequest(browser, server.base);
  await reloadRevalidates(browser, server.base);
  await backUndoesLabChange(browser, server.base);
  await siteFolder(server.base);
  await honestControls(browser, server.base);
  await paste(browser, server.base);
  await lessonsChinese(browser, server.base);
  await noWebGL(server.base);
} finally {
  await browser.close();
  server.proc.kill();
}
console.log('report ' + JSON.stringify(report));
finish();
