// posviz_page.js: the JavaScript half of web.cpp (linked with --js-library): downloads, the file
// picker, the address fragment, the clipboard, browser storage for the settings. Each function is
// one browser call; what the window decides stays in C++. Each runs on the page's main thread
// (__proxy: 'sync'): in the threaded build an export's job may call one from a worker.
mergeInto(LibraryManager.library, {
  $posvizPage: {
    pasted: '',
    settingsKept: 0,
    syncing: false,
    syncAgain: false,
    // Copies a string into the wasm heap; the C++ side frees it.
    heapString: function(s) {
      var n = lengthBytesUTF8(s) + 1;
      var p = _malloc(n);
      stringToUTF8(s, p, n);
      return p;
    },
  },

  posviz_page_download__deps: ['$posvizPage'],
  posviz_page_download__proxy: 'sync',
  posviz_page_download__sig: 'vii',
  posviz_page_download: function(pathPtr, namePtr) {
    var path = UTF8ToString(pathPtr), name = UTF8ToString(namePtr);
    var bytes = FS.readFile(path);
    var types = {png: 'image/png', svg: 'image/svg+xml', gif: 'image/gif', json: 'application/json',
                 csv: 'text/csv', npy: 'application/octet-stream', posviz: 'application/json'};
    var ext = name.split('.').pop().toLowerCase();
    var blob = new Blob([bytes], {type: types[ext] || 'application/octet-stream'});
    var a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    document.body.removeChild(a);
    setTimeout(function() { URL.revokeObjectURL(a.href); }, 60000);
    if (Module['onDownload']) Module['onDownload'](name, bytes);
  },

  // The chosen file is copied into the page's memory (/uploads/NAME), then the window opens it.
  posviz_page_pick_file__proxy: 'sync',
  posviz_page_pick_file__sig: 'vi',
  posviz_page_pick_file: function(acceptPtr) {
    var input = document.createElement('input');
    input.type = 'file';
    input.accept = UTF8ToString(acceptPtr);
    input.onchange = function() {
      if (!input.files || input.files.length === 0) return;
      Module['posvizOpenFiles'](input.files);
    };
    input.click();
  },

  // For one field of a tab: the file (or the whole folder) is copied into the page's memory under
  // /uploads/, then posviz_web_picked hands the field its path there.
  posviz_page_pick_path__proxy: 'sync',
  posviz_page_pick_path__sig: 'vii',
  posviz_page_pick_path: function(acceptPtr, folder) {
    var input = document.createElement('input');
    input.type = 'file';
    if (folder) input.webkitdirectory = true;
    else input.accept = UTF8ToString(acceptPtr);
    input.onchange = function() {
      if (!input.files || input.files.length === 0) return;
      Module['posvizCopyFiles'](input.files, folder).then(function(path) {
        if (path) Module['ccall']('posviz_web_picked', null, ['string'], [path]);
      });
    };
    input.click();
  },

  posviz_page_address__deps: ['$posvizPage'],
  posviz_page_address__proxy: 'sync',
  posviz_page_address__sig: 'i',
  posviz_page_address: function() { return posvizPage.heapString(location.href); },
  posviz_page_fragment__deps: ['$posvizPage'],
  posviz_page_fragment__proxy: 'sync',
  posviz_page_fragment__sig: 'i',
  posviz_page_fragment: function() {
    var h = location.hash.length > 1 ? location.hash.substring(1) : '';
    try { h = decodeURIComponent(h); } catch (e) { /* a damaged escape: the window refuses it by name */ }
    return posvizPage.heapString(h);
  },
  posviz_page_set_fragment__proxy: 'sync',
  posviz_page_set_fragment__sig: 'vii',
  posviz_page_set_fragment: function(fragmentPtr, push) {
    var f = UTF8ToString(fragmentPtr);
    var url = location.pathname + location.search + (f.length ? '#' + f : '');
    if (url === location.pathname + location.search + location.hash) return;
    Module['posvizOwnHash'] = '#' + f;
    if (push) history.pushState(null, '', url); else history.replaceState(null, '', url);
  },

  posviz_page_copy_text__deps: ['$posvizPage'],
  posviz_page_copy_text__proxy: 'sync',
  posviz_page_copy_text__sig: 'vi',
  posviz_page_copy_text: function(textPtr) {
    var text = UTF8ToString(textPtr);
    posvizPage.pasted = text;   // a paste inside the page gives back what it copied
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).catch(function() {});
  },
  posviz_page_pasted_text__deps: ['$posvizPage'],
  posviz_page_pasted_text__proxy: 'sync',
  posviz_page_pasted_text__sig: 'i',
  posviz_page_pasted_text: function() { return posvizPage.heapString(posvizPage.pasted || ''); },

  // IndexedDB holds the settings folder (pre.js mounted and loaded it); one write at a time.
  posviz_page_sync_settings__deps: ['$posvizPage'],
  posviz_page_sync_settings__proxy: 'sync',
  posviz_page_sync_settings__sig: 'v',
  posviz_page_sync_settings: function() {
    if (!posvizPage.settingsKept) return;
    if (posvizPage.syncing) { posvizPage.syncAgain = true; return; }
    posvizPage.syncing = true;
    FS.syncfs(false, function(err) {
      posvizPage.syncing = false;
      if (err) console.warn('posviz: settings not kept in browser storage: ' + err);
      if (posvizPage.syncAgain) { posvizPage.syncAgain = false; _posviz_page_sync_settings(); }
    });
  },
  posviz_page_settings_kept__deps: ['$posvizPage'],
  posviz_page_settings_kept__proxy: 'sync',
  posviz_page_settings_kept__sig: 'i',
  posviz_page_settings_kept: function() { return posvizPage.settingsKept; },
});
