// Stage 02's laboratory: host memory beyond the article's two kinds and two
// copies, one subcommand each, listed in laboratory.cpp (the stage's --help
// prints that list). Each run function gets argv[0] = its subcommand's name.
#pragma once

namespace csg::copies {

int run_sweep(int argc, char** argv);         // sweep.cpp
int run_overlap(int argc, char** argv);       // overlap.cpp
int run_pinning_cost(int argc, char** argv);  // pinning_cost.cpp
int run_timeline(int argc, char** argv);      // timeline.cpp

}  // namespace csg::copies
