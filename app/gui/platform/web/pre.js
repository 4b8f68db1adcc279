// pre.js: the page's start, before main() (linked with --pre-js). Browser storage (IndexedDB)
// holds the settings folder: it is mounted and read here, so main() finds settings.json as the
// desktop does. Files picked or dropped on the page are copied into the page's memory and handed
// to the window; the address's fragment, a paste and the page being hidden reach it too.
// Worker threads made before main(): a thread started past them waits for the page's event loop,
// which a frame benchmark (one long loop of frames) never returns to. Every view's jobs take two
// threads, so the benchmark, which opens every tab, gets a pool for all of them; a visit starts
// with 8 and the rest come as the tabs are opened.
Module['posvizPoolSize'] = typeof location !== 'undefined' && /[?&]bench-frames=/.test(location.search) ? 48 : 8;
Module['preRun'] = Module['preRun'] || [];
Module['preRun'].push(function() {
  var dir = '/home/web_user/.config/posviz';
  FS.mkdirTree(dir);
  if (typeof indexedDB === 'undefined') return;
  try { FS.mount(IDBFS, {}, dir); } catch (e) { return; }
  addRunDependency('posviz-settings');
  var done = false;
  function finish(kept) {
    if (done) return;
    done = true;
    posvizPage.settingsKept = kept;
    removeRunDependency('posviz-settings');
  }
  // A storage that never answers (a blocked database) must not keep the page from starting.
  setTimeout(function() { finish(0); }, 3000);
  try {
    FS.syncfs(true, function(err) { finish(err ? 0 : 1); });
  } catch (e) { finish(0); }
});

// Copies picked files into the page's memory; resolves to the first file's path there, or, for a
// folder (each file's webkitRelativePath starts with the folder's name), to the folder's path.
// A name part that is empty, '.' or '..' is refused: nothing is written outside /uploads.
Module['posvizCopyFiles'] = function(files, folder) {
  var list = Array.prototype.slice.call(files);
  var safe = function(part) { return part.length > 0 && part !== '.' && part !== '..'; };
  return Promise.all(list.map(function(file) {
    return file.arrayBuffer().then(function(bytes) {
      var parts = (folder && file.webkitRelativePath ? file.webkitRelativePath : file.name).split('/').map(function(p) {
        return p.replace(/\\/g, '_');
      });
      if (!parts.every(safe)) return null;
      var path = '/uploads/' + parts.join('/');
      FS.mkdirTree(path.substring(0, path.lastIndexOf('/')));
      FS.writeFile(path, new Uint8Array(bytes));
      return folder ? '/uploads/' + parts[0] : path;
    });
  })).then(function(paths) {
    return paths.filter(function(p) { return p; })[0] || '';
  });
};

Module['posvizOpenFiles'] = function(files) {
  FS.mkdirTree('/uploads');
  Array.prototype.forEach.call(files, function(file) {
    var reader = new FileReader();
    reader.onload = function() {
      var path = '/uploads/' + file.name.replace(/[\/\\]/g, '_');
      FS.writeFile(path, new Uint8Array(reader.result));
      Module['ccall']('posviz_web_open_file', null, ['string'], [path]);
    };
    reader.readAsArrayBuffer(file);
  });
};

Module['postRun'] = Module['postRun'] || [];
Module['postRun'].push(function() {
  // The wheel over the canvas, as notches: 100 pixels, 3 lines or one page a notch (the browser's
  // deltaY is positive scrolling down; GLFW's is positive up). Taken before the runtime's own GLFW
  // handler sees it (window, capture phase).
  window.addEventListener('wheel', function(e) {
    if (e.target !== Module['canvas']) return;
    var per = e.deltaMode === 1 ? 3 : e.deltaMode === 2 ? 1 : 100;
    _posviz_web_wheel(-e.deltaX / per, -e.deltaY / per);
    e.preventDefault();
    e.stopImmediatePropagation();
  }, { capture: true, passive: false });
  window.addEventListener('hashchange', function() {
    if (location.hash !== Module['posvizOwnHash']) _posviz_web_address_changed();
  });
  document.addEventListener('visibilitychange', function() {
    if (document.visibilityState === 'hidden') _posviz_web_store_settings();
  });
  window.addEventListener('pagehide', function() { _posviz_web_store_settings(); });
  document.addEventListener('paste', function(e) {
    if (e.clipboardData) posvizPage.pasted = e.clipboardData.getData('text');
  });
});
