# install.cmake: `cmake --install BUILD [--prefix DIR]` puts posviz where a desktop finds it, and
# `cpack` (in BUILD) makes a .deb of the same layout:
#   bin/posviz
#   share/applications/posviz.desktop
#   share/icons/hicolor/scalable/apps/posviz.svg, share/icons/hicolor/256x256/apps/posviz.png
#   share/doc/posviz/README.md, LICENSE-DejaVu.txt
# posviz needs no other files: its font, presets, lessons and shaders are compiled in.
include(GNUInstallDirs)

install(TARGETS posviz RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/assets/desktop/posviz.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/assets/icons/posviz.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/assets/fonts/LICENSE-DejaVu.txt
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The raster icon is posviz's own picture of a sinusoidal encoding, drawn by the headless CLI
# (in every tree that builds it: a fuzz-only tree does not).
if(NOT POSVIZ_BUILD_FUZZ OR POSVIZ_BUILD_TESTS)
  set(POSVIZ_ICON_PNG ${PROJECT_BINARY_DIR}/posviz-256.png)
  add_custom_command(
    OUTPUT ${POSVIZ_ICON_PNG}
    COMMAND posviz_headless export sinusoidal --d-model 64 --positions 64 --base 100 --scale 4 -o ${POSVIZ_ICON_PNG}
    DEPENDS posviz_headless
    COMMENT "Drawing the 256x256 icon")
  add_custom_target(posviz_icon ALL DEPENDS ${POSVIZ_ICON_PNG})
  install(FILES ${POSVIZ_ICON_PNG} DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/256x256/apps RENAME posviz.png)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME posviz)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "transformer positional encodings, visible and exact")
set(CPACK_PACKAGE_DESCRIPTION "Interactive views of sinusoidal, learned, RoPE and ALiBi positional encodings, \
the worked examples of the documents they come from, model configs, and exports as images or numbers.")
set(CPACK_PACKAGE_FILE_NAME posviz_${PROJECT_VERSION}_amd64)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "posviz developers")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
# Runtime libraries (GLFW, epoxy, spng, giflib, stb) found by dpkg-shlibdeps from what posviz links.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libav* is opened on the first video export (app/cli/video.cpp), so dpkg-shlibdeps cannot see it:
# its packages are named here, by the major versions of the headers posviz was built against.
set(posviz_av_packages "")
foreach(m libavcodec libavformat libavutil libswscale)
  string(REGEX MATCH "^[0-9]+" major "${LIBAV_${m}_VERSION}")
  list(APPEND posviz_av_packages "${m}${major}")
endforeach()
string(REPLACE ";" ", " CPACK_DEBIAN_PACKAGE_DEPENDS "${posviz_av_packages}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)
