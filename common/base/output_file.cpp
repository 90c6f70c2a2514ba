#include "base/output_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "base/errors.hpp"
#include "base/interrupt.hpp"

namespace csg {

namespace fs = std::filesystem;

namespace {

// The file a path means once links are resolved (the path itself where it
// does not exist yet, with its folder resolved).
// A link whose target does not exist yet is followed too: writing through it
// creates that target.
fs::path resolved(const fs::path& path) {
  std::error_code ec;
  fs::path current = fs::absolute(path, ec);
  if (ec) current = path;
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(current, ec)); ++hops) {
    const fs::path target = fs::read_symlink(current, ec);
    if (ec) break;
    current = target.is_absolute() ? target : current.parent_path() / target;
  }
  const fs::path canonical = fs::weakly_canonical(current, ec);
  return ec ? current.lexically_normal() : canonical;
}

bool under(const fs::path& path, const char* root) {
  const auto first = path.begin();
  if (first == path.end()) return false;
  auto second = std::next(first);
  return path.is_absolute() && second != path.end() && *second == root;
}

// Why `path` must not be written, or "" when it may be.
std::string unwritable_reason(const fs::path& path) {
  const fs::path real = resolved(path);
  if (under(real, "proc") || under(real, "sys")) return "is under /" + (*std::next(real.begin())).string() +
                                                        ", not a file to write results to";
  std::error_code ec;
  const fs::file_status status = fs::status(real, ec);
  if (ec || status.type() == fs::file_type::not_found) return "";
  switch (status.type()) {
    case fs::file_type::regular: return "";
    case fs::file_type::directory: return "is a directory, expected a file name";
    case fs::file_type::character:
    case fs::file_type::block: return "is a device, not a regular file";
    case fs::file_type::fifo: return "is a FIFO, not a regular file";
    case fs::file_type::socket: return "is a socket, not a regular file";
    default: return "exists and is not a regular file";
  }
}

}  // namespace

void check_output_path(const std::string& flag, const std::string& path) {
  const std::string prefix = "--" + flag + " " + path + ": ";
  if (path.empty()) throw UsageError("--" + flag + " needs a file name");
  if (const std::string reason = unwritable_reason(path); !reason.empty()) throw UsageError(prefix + reason);
  std::error_code ec;
  fs::path dir = resolved(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) throw UsageError(prefix + "directory " + dir.string() + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0) throw UsageError(prefix + "directory " + dir.string() + " is not writable");
}

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      if (outputs[i].second.empty() || outputs[j].second.empty()) continue;
      if (resolved(outputs[i].second) == resolved(outputs[j].second)) {
        throw UsageError("--" + outputs[i].first + " and --" + outputs[j].first + " name the same file (" +
                         outputs[j].second + "): one would overwrite the other");
      }
    }
  }
}

void write_file_whole(const std::string& path, const std::function<void(const std::string& temporary)>& write) {
  if (const std::string reason = unwritable_reason(path); !reason.empty()) {
    throw std::runtime_error("not writing " + path + ": it " + reason);
  }
  const std::string target = resolved(path).string();
  const std::string temporary = target + ".tmp." + std::to_string(::getpid());
  set_pending_temporary(temporary.c_str());
  std::error_code ignored;
  try {
    write(temporary);
  } catch (...) {
    fs::remove(temporary, ignored);
    set_pending_temporary(nullptr);
    throw;
  }
  std::error_code error;
  fs::rename(temporary, target, error);
  if (error) fs::remove(temporary, ignored);
  set_pending_temporary(nullptr);
  if (error) throw std::runtime_error("cannot rename " + temporary + " to " + path + ": " + error.message());
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
