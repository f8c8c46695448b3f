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
  });
};

// A file the Share popup wrote (in the page's memory) handed to the user as a download.
Module.poslabDownload = function (path) {
  const name = path.split('/').pop();
  const type = name.endsWith('.png') ? 'image/png' : name.endsWith('.csv') ? 'text/csv' : 'application/json';
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
    })
    .catch(function (e) {
      Module.poslabFetchErrors[file] = url + ': ' + String(e);
      Module.poslabFetches[file] = 2;
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
    });
  };
  input.click();
};
