// Runs a program (a stage binary) and captures its exit code, stdout and stderr.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace csg::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 if it did not exit normally (signal)
  std::string out;
  std::string err;
};

// `extra_env` entries ("NAME=value") are added to, or replace, the environment.
ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {});

// Like run_process, but sends `signal` to the program once its stderr holds
// `when_stderr_has` and `after_ms` more milliseconds have passed, as Ctrl-C
// or `kill` would. `signalled` tells whether the text appeared before the
// program ended (if not, no signal was sent).
struct InterruptedRun {
  ProcessResult result;
  bool signalled = false;
};
InterruptedRun run_process_and_signal(const std::vector<std::string>& argv, const std::string& when_stderr_has,
                                      int signal, int after_ms = 0);

// The whole content of a file ("" if it can't be read).
std::string read_text(const std::string& path);

// The JSON document in a file. Throws std::runtime_error naming the file if
// it can't be opened (nlohmann's parse error if it is not JSON).
nlohmann::json read_json(const std::string& path);

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

// A run told to write its results JSON: the exit code and output, and the
// file, read only when a test asks for it (after checking the exit code).
struct JsonRun : ProcessResult {
  std::string json_path;
  bool wrote_json() const;  // the file is there to be read
  nlohmann::json doc() const { return read_json(json_path); }
};

// Runs `argv` with "--json <dir>/<name>" added at the end.
JsonRun run_with_json(std::vector<std::string> argv, const TempDir& dir, const std::string& name);

}  // namespace csg::testing
