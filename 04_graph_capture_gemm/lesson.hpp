// Stage 04's lesson, beside main.cu (being written).
#pragma once

#include <span>

#include "stage.hpp"

namespace csg::lesson04 {

inline constexpr const char* kStage = "04_graph_capture_gemm";

// The laboratory: every experiment beyond the article, one subcommand each.
std::span<const Subcommand> laboratory();

}  // namespace csg::lesson04
