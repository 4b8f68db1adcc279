# web.cmake: the browser build's dependencies (emcmake cmake ...; scripts/web drives it).
#
# The page is built from the same targets as the desktop. What Debian packages as -dev libraries
# on the desktop is compiled here from Debian's own source packages, unpacked by scripts/web into
# POSVIZ_WEB_SOURCES (Dear ImGui at libimgui-dev's version, zlib, libspng, giflib), under the same
# imported names the desktop's find_package / pkg_check_modules give, so no target below knows
# which platform it is built for:
#   PkgConfig::IMGUI   Dear ImGui + its GLFW and OpenGL 3 backends (WebGL 2 through GLES 3)
#   PkgConfig::GLFW    emscripten's GLFW 3 (-sUSE_GLFW=3), PkgConfig::EPOXY: WebGL 2 (no loader)
#   PkgConfig::SPNG    libspng over zlib, GIF::GIF giflib, PkgConfig::STB / glm / nlohmann: headers
# Header-only libraries come from the host's /usr/include, one folder each (never the whole of
# /usr/include, whose glibc headers are not emscripten's).
# POSVIZ_WEB_THREADS=ON builds with -pthread (the page then needs cross-origin isolation).
set(POSVIZ_WEB_SOURCES "${PROJECT_SOURCE_DIR}/build/web-src" CACHE PATH "Debian source packages unpacked by scripts/web")
option(POSVIZ_WEB_THREADS "Browser build with worker threads (needs a cross-origin isolated page)" OFF)
set(POSVIZ_EMBED_TOOL "" CACHE FILEPATH "embed_files built for the host (cmake/embed.cmake); scripts/web builds it")

function(posviz_web_source var pattern)
  file(GLOB found LIST_DIRECTORIES true "${POSVIZ_WEB_SOURCES}/${pattern}")
  list(LENGTH found n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "web build: expected one ${pattern} in ${POSVIZ_WEB_SOURCES} (scripts/web unpacks it), found ${n}")
  endif()
  set(${var} "${found}" PARENT_SCOPE)
endfunction()
posviz_web_source(POSVIZ_IMGUI_DIR "imgui-*")
posviz_web_source(POSVIZ_ZLIB_DIR "zlib-*")
posviz_web_source(POSVIZ_SPNG_DIR "libspng-*")
posviz_web_source(POSVIZ_GIF_DIR "giflib-*")

# One folder per header-only library, linked to the host's copy.
set(POSVIZ_WEB_INCLUDE "${PROJECT_BINARY_DIR}/host-include")
file(MAKE_DIRECTORY "${POSVIZ_WEB_INCLUDE}")
foreach(lib glm nlohmann stb)
  if(NOT EXISTS "/usr/include/${lib}")
    message(FATAL_ERROR "web build: /usr/include/${lib} is missing (its Debian -dev package installs it)")
  endif()
  if(NOT EXISTS "${POSVIZ_WEB_INCLUDE}/${lib}")
    file(CREATE_LINK "/usr/include/${lib}" "${POSVIZ_WEB_INCLUDE}/${lib}" SYMBOLIC)
  endif()
endforeach()

# C++ exceptions in every object (emscripten drops catching by default), SSE2 through wasm SIMD.
set(POSVIZ_WEB_COMPILE -fexceptions -msimd128 -msse2)
if(POSVIZ_WEB_THREADS)
  list(APPEND POSVIZ_WEB_COMPILE -pthread)
  add_link_options(-pthread)
endif()
add_compile_options(${POSVIZ_WEB_COMPILE})

add_library(posviz_host_headers INTERFACE)
target_include_directories(posviz_host_headers SYSTEM INTERFACE "${POSVIZ_WEB_INCLUDE}")
add_library(glm::glm ALIAS posviz_host_headers)
add_library(nlohmann_json::nlohmann_json ALIAS posviz_host_headers)
# pkg-config's stb puts its folder itself on the path (<stb_image_write.h>), and Debian's libstb
# holds the implementations; here they are compiled from the same headers.
set(POSVIZ_WEB_STB_C "${PROJECT_BINARY_DIR}/generated/stb_impl.c")
file(WRITE "${POSVIZ_WEB_STB_C}.in" "#define STB_IMAGE_WRITE_IMPLEMENTATION\n#include <stb_image_write.h>\n"
     "#define STB_TRUETYPE_IMPLEMENTATION\n#include <stb_truetype.h>\n")
configure_file("${POSVIZ_WEB_STB_C}.in" "${POSVIZ_WEB_STB_C}" COPYONLY)
add_library(posviz_web_stb STATIC "${POSVIZ_WEB_STB_C}")
target_include_directories(posviz_web_stb SYSTEM PUBLIC "${POSVIZ_WEB_INCLUDE}/stb" "${POSVIZ_WEB_INCLUDE}")
target_compile_options(posviz_web_stb PRIVATE -w)
add_library(PkgConfig::STB ALIAS posviz_web_stb)

set(zsrc adler32.c compress.c crc32.c deflate.c infback.c inffast.c inflate.c inftrees.c trees.c uncompr.c zutil.c)
list(TRANSFORM zsrc PREPEND "${POSVIZ_ZLIB_DIR}/")
add_library(posviz_web_zlib STATIC ${zsrc})
target_include_directories(posviz_web_zlib SYSTEM PUBLIC "${POSVIZ_ZLIB_DIR}")
target_compile_options(posviz_web_zlib PRIVATE -w)

add_library(posviz_web_spng STATIC "${POSVIZ_SPNG_DIR}/spng/spng.c")
target_include_directories(posviz_web_spng SYSTEM PUBLIC "${POSVIZ_SPNG_DIR}/spng")
target_compile_definitions(posviz_web_spng PUBLIC SPNG_STATIC)
target_link_libraries(posviz_web_spng PUBLIC posviz_web_zlib)
target_compile_options(posviz_web_spng PRIVATE -w)
add_library(PkgConfig::SPNG ALIAS posviz_web_spng)

set(gsrc dgif_lib.c egif_lib.c gifalloc.c gif_err.c gif_hash.c openbsd-reallocarray.c quantize.c)
list(TRANSFORM gsrc PREPEND "${POSVIZ_GIF_DIR}/")
add_library(posviz_web_gif STATIC ${gsrc})
target_include_directories(posviz_web_gif SYSTEM PUBLIC "${POSVIZ_GIF_DIR}")
target_compile_options(posviz_web_gif PRIVATE -w)
add_library(GIF::GIF ALIAS posviz_web_gif)

add_library(posviz_web_imgui STATIC
  "${POSVIZ_IMGUI_DIR}/imgui.cpp" "${POSVIZ_IMGUI_DIR}/imgui_draw.cpp" "${POSVIZ_IMGUI_DIR}/imgui_tables.cpp"
  "${POSVIZ_IMGUI_DIR}/imgui_widgets.cpp" "${POSVIZ_IMGUI_DIR}/backends/imgui_impl_glfw.cpp"
  "${POSVIZ_IMGUI_DIR}/backends/imgui_impl_opengl3.cpp")
# As Debian's libimgui-dev lays it out: <imgui.h> and <backends/imgui_impl_glfw.h>.
target_include_directories(posviz_web_imgui SYSTEM PUBLIC "${POSVIZ_IMGUI_DIR}")
target_compile_options(posviz_web_imgui PRIVATE -w)
target_link_options(posviz_web_imgui PUBLIC -sUSE_GLFW=3 -sUSE_WEBGL2=1 -sMIN_WEBGL_VERSION=2 -sMAX_WEBGL_VERSION=2
                    -sFULL_ES3=1)
add_library(PkgConfig::IMGUI ALIAS posviz_web_imgui)
add_library(posviz_web_gl INTERFACE)
add_library(PkgConfig::GLFW ALIAS posviz_web_gl)
add_library(PkgConfig::EPOXY ALIAS posviz_web_gl)
