// A lesson's parse_options called as main calls it: argv[0] the stage's
// name, then `args`, as writable C strings that live as long as this object.
#pragma once

#include <string>
#include <vector>

namespace csg::testing {

class LessonArgv {
 public:
  LessonArgv(const std::string& stage, const std::vector<std::string>& args) : words_{stage} {
    words_.insert(words_.end(), args.begin(), args.end());
    for (std::string& word : words_) pointers_.push_back(word.data());
  }
  int argc() const { return static_cast<int>(pointers_.size()); }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> words_;
  std::vector<char*> pointers_;
};

}  // namespace csg::testing
