// Runs a program (a stage binary) and captures its exit code, stdout and stderr.
#pragma once

#include <string>
#include <vector>

namespace csg::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 if it did not exit normally (signal)
  std::string out;
  std::string err;
};

// `extra_env` entries ("NAME=value") are added to, or replace, the environment.
ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {});

// A fresh, empty directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> entries() const;  // names of what the directory holds

 private:
  std::string path_;
};

}  // namespace csg::testing
