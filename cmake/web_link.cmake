# web_link.cmake: how the page's posviz.js / posviz.wasm are linked (app/CMakeLists.txt includes
# it for the browser build). Exceptions are C++'s own (the code throws typed errors everywhere);
# memory grows on demand up to wasm32's 4 GiB, and core's budgets stay what they are on the desktop.
# Settings live in IndexedDB (IDBFS mounted over the settings folder); app/gui/platform/web names
# the functions the page calls.
set(POSVIZ_WEB_EXPORTS _main _posviz_web_open_file _posviz_web_store_settings _posviz_web_address_changed
    _posviz_web_state _posviz_web_select_panel _posviz_web_run_cli _posviz_web_picked _posviz_web_buttons _posviz_web_wheel)
list(JOIN POSVIZ_WEB_EXPORTS "," POSVIZ_WEB_EXPORT_LIST)
target_link_options(posviz PRIVATE -fexceptions -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB -sINITIAL_MEMORY=64MB
  -sTOTAL_STACK=8MB -sEXIT_RUNTIME=0 -lidbfs.js -sEXPORTED_FUNCTIONS=${POSVIZ_WEB_EXPORT_LIST}
  "-sEXPORTED_RUNTIME_METHODS=ccall,cwrap,FS,UTF8ToString"
  --js-library ${PROJECT_SOURCE_DIR}/app/gui/platform/web/posviz_page.js)
if(POSVIZ_WEB_THREADS)
  # Jobs start threads on demand (two per view, plus core's splits): a pool made at start keeps
  # them from waiting on the page's event loop; more are made when a session needs them. Its size
  # is pre.js's Module.posvizPoolSize (larger for the frame benchmark, which never yields).
  # Growing memory shared with threads makes JavaScript re-read the heap's views (emscripten warns
  # of it); the page's JavaScript is a thin layer, the work is in wasm, which it does not slow.
  target_link_options(posviz PRIVATE -sPTHREAD_POOL_SIZE=Module.posvizPoolSize -sPTHREAD_POOL_SIZE_STRICT=0 -Wno-pthreads-mem-growth)
  # Beside the build without threads in one folder: posviz-mt.js, .wasm and .worker.js.
  set_target_properties(posviz PROPERTIES OUTPUT_NAME posviz-mt)
endif()
set_target_properties(posviz PROPERTIES SUFFIX ".js")
target_link_options(posviz PRIVATE --pre-js ${PROJECT_SOURCE_DIR}/app/gui/platform/web/pre.js)
