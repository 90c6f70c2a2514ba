#include "base/output_file.hpp"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "base/text.hpp"

namespace csg {

namespace fs = std::filesystem;

namespace {

// The file a path means once links are resolved, even a link to a file that
// does not exist yet (writing through it creates that target).
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

// The longest file name the file system holding `folder` takes (255 on ext4,
// XFS, tmpfs); NAME_MAX where it can't say.
std::size_t longest_name(const fs::path& folder) {
  const long name_max = ::pathconf(folder.empty() ? "." : folder.c_str(), _PC_NAME_MAX);
  return name_max > 0 ? static_cast<std::size_t>(name_max) : std::size_t{NAME_MAX};
}

// What write_file_whole appends to the target's name for its temporary file.
std::string temporary_suffix() { return ".tmp." + std::to_string(::getpid()); }
// The longest suffix any process could use (a pid has at most 10 digits).
constexpr std::size_t kLongestTemporarySuffix = 5 + 10;

// Why the path is too long to be written, or "" when it is not: one of its
// names longer than the file system takes, or the whole longer than a path
// may be (the system refuses it with ENAMETOOLONG, at the end of the run).
std::string too_long_reason(const fs::path& path) {
  const fs::path folder = path.parent_path();
  const std::size_t name_max = longest_name(folder);
  for (const fs::path& part : path) {
    const std::string name = part.string();
    if (name.size() > name_max) {
      return "a name in it is " + plural(static_cast<long long>(name.size()), "byte") + " long, longer than the " +
             std::to_string(name_max) + " this file system takes";
    }
  }
  const std::size_t length = resolved(path).string().size();
  if (length + kLongestTemporarySuffix >= PATH_MAX) {
    return "the path is " + plural(static_cast<long long>(length), "byte") + " long once resolved, longer than the " +
           std::to_string(PATH_MAX - 1 - kLongestTemporarySuffix) + " a file written whole may have";
  }
  return "";
}

}  // namespace

void check_output_path(const std::string& flag, const std::string& path) {
  const std::string prefix = "--" + flag + " " + in_quotes(path) + ": ";
  if (path.empty()) throw UsageError("--" + flag + " needs a file name");
  if (const std::string reason = too_long_reason(path); !reason.empty()) throw UsageError(prefix + reason);
  if (const std::string reason = unwritable_reason(path); !reason.empty()) throw UsageError(prefix + reason);
  std::error_code ec;
  fs::path dir = resolved(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec)) throw UsageError(prefix + "directory " + in_quotes(dir.string()) + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0) {
    throw UsageError(prefix + "directory " + in_quotes(dir.string()) + " is not writable");
  }
}

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      if (outputs[i].second.empty() || outputs[j].second.empty()) continue;
      if (resolved(outputs[i].second) == resolved(outputs[j].second)) {
        throw UsageError("--" + outputs[i].first + " and --" + outputs[j].first + " name the same file (" +
                         in_quotes(outputs[j].second) + "): one would overwrite the other");
      }
    }
  }
}

void write_file_whole(const std::string& path, const std::function<void(const std::string& temporary)>& write) {
  if (const std::string reason = unwritable_reason(path); !reason.empty()) {
    throw std::runtime_error("not writing " + in_quotes(path) + ": it " + reason);
  }
  const fs::path target_path = resolved(path);
  const std::string target = target_path.string();
  // Beside the target, named after it, cut short where the name and the
  // suffix together would be longer than the file system takes.
  std::string temporary_name = target_path.filename().string();
  const std::string suffix = temporary_suffix();
  const std::size_t name_max = longest_name(target_path.parent_path());
  if (temporary_name.size() + suffix.size() > name_max) temporary_name.resize(name_max - suffix.size());
  const std::string temporary = (target_path.parent_path() / (temporary_name + suffix)).string();
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
  if (error) {
    throw std::runtime_error("cannot rename " + in_quotes(temporary) + " to " + in_quotes(path) + ": " + error.message());
  }
}

void write_text_file(const std::string& path, const std::string& text) {
  write_file_whole(path, [&text](const std::string& temporary) {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + in_quotes(temporary));
    out << text;
    out.flush();
    if (!out) throw std::runtime_error("writing " + in_quotes(temporary) + " failed");
  });
}

void print_to_stdout(const std::string& text, const std::string& what) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    const int error = errno;
    std::clearerr(stdout);
    throw UsageError(what + ": could not write to standard output (" + std::strerror(error) + ")");
  }
}

}  // namespace csg
