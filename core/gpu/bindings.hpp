// bindings.hpp: the one place binding indices, image units and the workgroup size are defined.
//
// The shaders never spell a number for these: GpuCompute injects each constant below as a
// #define (POSVIZ_BINDING_FREQUENCIES, ...) between #version and the shader text, so the C++
// side and the GLSL side cannot drift apart.
#pragma once

namespace posviz::gpu {

// Shader storage buffers (layout(std430, binding = ...)).
constexpr int kBindingFrequencies = 0;  // vec2 per pair: float64 inverse frequency as (hi, lo) floats
constexpr int kBindingQ = 1;            // float[headDim], the query vector of a score grid
constexpr int kBindingK = 2;            // float[headDim], the key vector of a score grid
constexpr int kBindingRotatedQ = 3;     // float[numPositions * headDim], q rotated to every position
constexpr int kBindingRotatedK = 4;     // float[numPositions * headDim], k rotated to every position

// Image units (layout(r32f, binding = ...)).
constexpr int kImageOutput = 0;         // the R32F tile a dispatch writes

// Every grid kernel runs kLocalSize x kLocalSize invocations per workgroup (x = column, y = row).
constexpr int kLocalSize = 16;

struct BindingDefine {
  const char* name;
  int value;
};

// What GpuCompute prepends to every shader, in this order.
constexpr BindingDefine kBindingDefines[] = {
    {"POSVIZ_BINDING_FREQUENCIES", kBindingFrequencies},
    {"POSVIZ_BINDING_Q", kBindingQ},
    {"POSVIZ_BINDING_K", kBindingK},
    {"POSVIZ_BINDING_ROTATED_Q", kBindingRotatedQ},
    {"POSVIZ_BINDING_ROTATED_K", kBindingRotatedK},
    {"POSVIZ_IMAGE_OUTPUT", kImageOutput},
    {"POSVIZ_LOCAL_SIZE", kLocalSize},
};

}  // namespace posviz::gpu
