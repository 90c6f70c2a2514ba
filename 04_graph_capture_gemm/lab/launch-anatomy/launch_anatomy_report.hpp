// The launch anatomy (launch_anatomy.hpp) in words, tables and JSON: the
// fits by node kind and shape, the comparison with NVIDIA's published
// figure, and the article's graph built five ways. Plain C++: the CPU tests
// call these on made-up figures.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "04_graph_capture_gemm/lab/launch-anatomy/launch_anatomy.hpp"
#include "04_graph_capture_gemm/lab/launch_costs.hpp"

namespace csg::graphs {

// NVIDIA's figure for the launch of a straight-line graph since CUDA 12.x's
// constant-time launch: about 2.5 us, plus about 1 ns per node.
inline constexpr double kNvidiaFixedUs = 2.5;
inline constexpr double kNvidiaPerNodeUs = 0.001;
// A node kind is launched in constant time when each node adds at most this
// much host time: a 10,000-node line then costs at most 0.2 ms more than an
// empty one, and a node stays 100x cheaper than a kernel launch on a stream.
inline constexpr double kConstantTimePerNodeUs = 0.02;
// A variant of the article's graph launches differently from the article's
// own only when the middle halves of their launches do not overlap and their
// medians are more than this far apart. (A median merely outside the
// article's middle half flipped from cheaper to dearer between two processes
// on the H200.)
inline constexpr double kArticleLaunchNoise = 0.10;

// A variant's replay differs on the GPU from the article's when their
// medians are more than this far apart (16 ms replays vary by well under 1%).
inline constexpr double kArticleReplayNoise = 0.03;
// The fork's GPU time per node against the line's: at least kForkSideBySide
// times faster, the lines ran side by side; at least kForkPartly, partly.
inline constexpr double kForkSideBySide = 1.5;
inline constexpr double kForkPartly = 1.2;

// The line fixed + per node x nodes through one kind and shape's figures:
// the host's time of the launch, or the GPU's time of the graph.
LineFit fit_chains(const Anatomy& anatomy, NodeKind kind, GraphShape shape, bool host);

// The straight line of kernel nodes against NVIDIA's figure: "matches",
// "close to constant time" (per node at most kConstantTimePerNodeUs) or
// "not constant time on this system".
std::string nvidia_text(const LineFit& kernel_line_host);
// One kind's host cost per node: constant time or not, against the kernel's.
std::string kind_text(NodeKind kind, const LineFit& line_host, const LineFit& kernel_line_host);
// The fork of `chains` lines against the line, for one kind: GPU time per
// node (side by side, partly overlapped, about as long, longer), and the
// launch's fixed host cost of each where both are constant time.
std::string fork_text(NodeKind kind, int chains, const LineFit& line_host, const LineFit& fork_host,
                      const LineFit& line_gpu, const LineFit& fork_gpu);

// The first and third quartile of a figure's samples, in ms (nearest rank).
double quartile_ms(const Summary& summary, int quarter);
// Each variant of the graph against the article's own: none differs
// beyond the noise, or which launched cheaper or dearer and by how much,
// and whether such a variant's replay was slower or faster on the GPU.
std::string article_text(const Anatomy& anatomy);

void print_anatomy(std::ostream& out, const Anatomy& anatomy);
nlohmann::json anatomy_json(const Anatomy& anatomy);

}  // namespace csg::graphs
