// Stage 04: the lesson is being rewritten; the laboratory runs meanwhile.
#include "lesson.hpp"

int main(int argc, char** argv) try {
  csg::start_stage(csg::lesson04::kStage);
  if (const csg::Subcommand* experiment = csg::find_subcommand(argc, argv, csg::lesson04::laboratory())) {
    return csg::run_subcommand(*experiment, argc, argv);
  }
  return csg::lesson04::laboratory()[0].run(argc, argv);
} catch (...) {
  return csg::exit_code_of_current_exception(csg::lesson04::kStage);
}
