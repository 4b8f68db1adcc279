// gl.hpp: the GL API the window draws with. The desktop loads OpenGL through libepoxy; the page
// has WebGL 2, which emscripten presents as OpenGL ES 3.0. The calls the shell and widgets make
// are in both (platform.hpp wraps the few that are not: debug output, texture readback).
#pragma once

#if defined(__EMSCRIPTEN__)
#include <GLES3/gl3.h>
#ifndef GLAPIENTRY
#define GLAPIENTRY
#endif
#else
#include <epoxy/gl.h>
#endif
