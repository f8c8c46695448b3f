// The page's side of app/web/main.cpp (emcc --pre-js: it shares the module's scope, so FS
// and IDBFS are at hand). main.cpp calls these through EM_ASM.

// The user folders (settings.json, lesson progress) on IndexedDB: mounted and read back into
// the in-memory file system before the app starts (Module.poslabFsReady), and stored again
// after each rename into them. Every write there is write_file_atomically's temporary file
// renamed over the target, so a rename is the moment a file is complete; FS.syncfs stores
// all changed files in one IndexedDB transaction, so the browser keeps the old set or the
// new one, never a torn file. Stores never overlap: one asked for during another runs after.
Module.poslabMount = function (config, data) {
  const dirs = [config, data];
  for (const d of dirs) {
    FS.mkdirTree(d);
    FS.mount(IDBFS, {}, d);
  }
  Module.poslabStores = 0;  // finished stores (tests wait on it)
  let busy = false;
  let again = false;
  const store = function () {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    Module.poslabStoring = true;
    FS.syncfs(false, function (err) {
      busy = false;
      if (err) console.error('poslab: could not store settings in this browser: ' + err);
      if (again) {
        again = false;
        store();
      } else {
        Module.poslabStoring = false;
        Module.poslabStores += 1;
      }
    });
  };
  const rename = FS.rename;
  FS.rename = function (from, to) {
    rename(from, to);
    if (dirs.some(function (d) { return to.startsWith(d + '/'); })) store();
  };
  FS.syncfs(true, function (err) {
    if (err) console.error('poslab: could not read settings from this browser: ' + err);
    Module.poslabFsReady = true;
    Module.poslabWake();
  });
};

// What stops the page from running, said in the page (not only in the console): the canvas
// makes way for one paragraph.
Module.poslabFatal = function (text) {
  const status = document.getElementById('status');
  if (status) status.remove();
  Module.canvas.style.display = 'none';
  let e = document.getElementById('poslab-error');
  if (!e) {
    e = document.createElement('div');
    e.id = 'poslab-error';
    document.body.appendChild(e);
  }
  e.textContent = text;
};

// A file the Share popup or a training run wrote (in the page's memory) handed to the user
// as a download.
Module.poslabDownload = function (path) {
  const name = path.split('/').pop();
  const type = name.endsWith('.png') ? 'image/png' : name.endsWith('.csv') ? 'text/csv'
    : name.endsWith('.json') ? 'application/json' : 'application/octet-stream';
  const url = URL.createObjectURL(new Blob([FS.readFile(path)], { type: type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
  (Module.poslabDownloads = Module.poslabDownloads || []).push(name);  // what was offered
};

// A copy to the browser's clipboard (the page must be focused, as it is right after the
// click that copied).
Module.poslabCopy = function (text) {
  if (navigator.clipboard && navigator.clipboard.writeText)
    navigator.clipboard.writeText(text).catch(function (e) {
      console.warn('poslab: the browser kept the clipboard: ' + e);
    });
};

// Paste: the browser's clipboard, read when the user pastes (navigator.clipboard.readText;
// the browser may ask the user first). Module.poslabClipboard: {ok, text} once it answered
// (text: why not, when it did not let the page read it); the app takes it once.
Module.poslabReadClipboard = function () {
  Module.poslabClipboard = null;
  if (!navigator.clipboard || !navigator.clipboard.readText) {
    Module.poslabClipboard = { ok: false, text: 'this browser lets no page read the clipboard' };
    Module.poslabWake();
    return;
  }
  navigator.clipboard.readText().then(function (text) {
    Module.poslabClipboard = { ok: true, text: text };
  }, function (e) {
    Module.poslabClipboard = { ok: false, text: String((e && e.message) || e) };
  }).finally(Module.poslabWake);
};

// Files fetched from beside the page into the page's memory when first needed (the Chinese
// font, the length lab's models): Module.poslabFetch(url, file) starts the fetch on its first
// call and answers 0 while it runs, 1 once `file` is written whole, 2 when it failed
// (Module.poslabFetchErrors[file] says why).
Module.poslabFetches = {};
Module.poslabFetchErrors = {};
Module.poslabFetch = function (url, file) {
  const state = Module.poslabFetches[file];
  if (state !== undefined) return state;
  Module.poslabFetches[file] = 0;
  fetch(url)
    .then(function (r) {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.arrayBuffer();
    })
    .then(function (b) {
      FS.mkdirTree(file.substring(0, file.lastIndexOf('/')));
      FS.writeFile(file, new Uint8Array(b));
      Module.poslabFetches[file] = 1;
      Module.poslabWake();
    })
    .catch(function (e) {
      Module.poslabFetchErrors[file] = url + ': ' + String(e);
      Module.poslabFetches[file] = 2;
      Module.poslabWake();
    });
  return 0;
};

// The browser's file picker: the chosen file is copied into /uploads in the page's memory
// (Module.poslabPicked: its path, taken once by the app). Nothing leaves the page.
Module.poslabPickFile = function (accept) {
  const input = document.createElement('input');
  input.type = 'file';
  input.accept = accept;
  input.onchange = function () {
    const f = input.files[0];
    if (!f) return;
    f.arrayBuffer().then(function (b) {
      FS.mkdirTree('/uploads');
      const path = '/uploads/' + f.name.replace(/\//g, '_');
      FS.writeFile(path, new Uint8Array(b));
      Module.poslabPicked = path;
      Module.poslabWake();
    });
  };
  input.click();
};

// Idle when still (app/frame_rule.hpp's rule, as the desktop's event loop): the frame
// function pauses the main loop when nothing wants a frame; any input, a resize, a finished
// fetch or a picked file wakes it (the event is seen in the next frame). Listeners on the
// window in the capture phase run before emscripten's GLFW handlers, which queue the input.
Module.poslabWake = function () {
  if (Module._poslab_web_wake) Module._poslab_web_wake();
};
['mousemove', 'mousedown', 'mouseup', 'keydown', 'keyup', 'keypress', 'touchstart', 'touchmove',
 'touchend', 'touchcancel', 'focus', 'blur', 'resize', 'pointerleave', 'pointerenter', 'drop',
 'visibilitychange'].forEach(function (type) {
  window.addEventListener(type, Module.poslabWake, true);
});

// The wheel as browsers scroll pages: one notch (100 pixels, 3 lines or 1 page, by deltaMode)
// is one notch of the app (app/web/main.cpp scrolls about three lines), and positive deltaY
// (down) scrolls down. Emscripten 3.1.6's GLFW would hand ImGui the raw deltaY (a whole view
// per notch, backwards): its listener on the canvas never sees the event.
Module.poslabWheel = function (e) {
  if (e.target !== Module.canvas) return;
  e.preventDefault();
  e.stopImmediatePropagation();
  if (e.type !== 'wheel' || !Module._poslab_web_wheel) return;  // legacy 'mousewheel': no
  const perNotch = e.deltaMode === 1 ? 3 : e.deltaMode === 2 ? 1 : 100;
  Module._poslab_web_wheel(-e.deltaX / perNotch, -e.deltaY / perNotch);
  Module.poslabWake();
};
window.addEventListener('wheel', Module.poslabWheel, { capture: true, passive: false });
window.addEventListener('mousewheel', Module.poslabWheel, { capture: true, passive: false });

// The canvas follows its CSS size (the window, fullscreen included) at devicePixelRatio:
// its pixels are CSS size x ratio, and GLFW's window (what ImGui sizes its display by) is
// told that size directly; glfwSetWindowSize would ask for fullscreen whenever the size
// equals the screen's. Returns the ratio (the app scales its fonts and style by it, as the
// desktop does by the monitor's content scale). Called at the start of each frame.
Module.poslabFit = function () {
  const c = Module.canvas;
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(c.clientWidth * dpr));
  const h = Math.max(1, Math.round(c.clientHeight * dpr));
  if (c.width !== w) c.width = w;
  if (c.height !== h) c.height = h;
  if (GLFW.active) {
    GLFW.active.width = w;
    GLFW.active.height = h;
  }
  return dpr;
};

// Autosave while the main loop idles (as the desktop's event loop wakes every 2 s).
setInterval(function () {
  if (Module._poslab_web_tick) Module._poslab_web_tick();
}, 2000);
