#include "base/output_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "base/errors.hpp"

namespace csg {

namespace fs = std::filesystem;

void check_output_path(const std::string& flag, const std::string& path) {
  const std::string prefix = "--" + flag + " " + path + ": ";
  if (path.empty()) throw UsageError("--" + flag + " needs a file name");
  std::error_code ec;
  const fs::path target(path);
  if (fs::is_directory(target, ec)) throw UsageError(prefix + "is a directory, expected a file name");
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) throw UsageError(prefix + "directory " + dir.string() + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0) throw UsageError(prefix + "directory " + dir.string() + " is not writable");
}

void write_file_whole(const std::string& path, const std::function<void(const std::string& temporary)>& write) {
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  std::error_code ignored;
  try {
    write(temporary);
  } catch (...) {
    fs::remove(temporary, ignored);
    throw;
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    fs::remove(temporary, ignored);
    throw std::runtime_error("cannot rename " + temporary + " to " + path + ": " + error.message());
  }
}

void write_text_file(const std::string& path, const std::string& text) {
  write_file_whole(path, [&text](const std::string& temporary) {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + temporary);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error("writing " + temporary + " failed");
  });
}

}  // namespace csg
