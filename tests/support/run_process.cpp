#include "run_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <thread>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace csg::testing {
std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in.good()) throw std::runtime_error("no JSON at " + path);
  return nlohmann::json::parse(in);
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "csg-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::vector<std::string> TempDir::entries() const {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(path_)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

namespace {

struct Spawned {
  pid_t pid = 0;
  std::string out_path, err_path;
};

Spawned spawn(const TempDir& dir, const std::vector<std::string>& argv, const std::vector<std::string>& extra_env) {
  Spawned child{0, dir.file("stdout"), dir.file("stderr")};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, child.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, child.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_text;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string item = *entry;
    const std::string name = item.substr(0, item.find('=') + 1);
    const bool replaced = std::any_of(extra_env.begin(), extra_env.end(),
                                      [&](const std::string& e) { return e.rfind(name, 0) == 0; });
    if (!replaced) env_text.push_back(item);
  }
  env_text.insert(env_text.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> env;
  for (auto& item : env_text) env.push_back(item.data());
  env.push_back(nullptr);
  const int spawned = posix_spawn(&child.pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("posix_spawn " + argv.front() + " failed");
  return child;
}

ProcessResult collect(const Spawned& child, int status) {
  ProcessResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_text(child.out_path);
  result.err = read_text(child.err_path);
  return result;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env) {
  TempDir dir;
  const Spawned child = spawn(dir, argv, extra_env);
  int status = 0;
  if (waitpid(child.pid, &status, 0) != child.pid) throw std::runtime_error("waitpid failed");
  return collect(child, status);
}

bool JsonRun::wrote_json() const { return std::ifstream(json_path).good(); }

JsonRun run_with_json(std::vector<std::string> argv, const TempDir& dir, const std::string& name) {
  JsonRun run;
  run.json_path = dir.file(name);
  argv.insert(argv.end(), {"--json", run.json_path});
  static_cast<ProcessResult&>(run) = run_process(argv);
  return run;
}

InterruptedRun run_process_and_signal(const std::vector<std::string>& argv, const std::string& when_stderr_has,
                                      int signal, int after_ms) {
  TempDir dir;
  const Spawned child = spawn(dir, argv, {});
  InterruptedRun run;
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(child.pid, &status, WNOHANG);
    if (done == child.pid) break;
    if (done < 0) throw std::runtime_error("waitpid failed");
    if (!run.signalled && read_text(child.err_path).find(when_stderr_has) != std::string::npos) {
      std::this_thread::sleep_for(std::chrono::milliseconds(after_ms));
      ::kill(child.pid, signal);
      run.signalled = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  run.result = collect(child, status);
  return run;
}

}  // namespace csg::testing
