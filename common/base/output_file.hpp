// Output files, written whole or not at all: the content goes to a temporary
// file next to the target, which is then renamed over it, so a reader never
// sees half a file. Only regular files are ever replaced: anything else, or a
// file under /proc or /sys, is refused before the run and again at the write.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace csg {

// Throws UsageError ("--<flag> <path>: ...") unless `path` can be written:
// its directory exists and is writable, the path is not under /proc or /sys,
// and if it exists it is a regular file (through links).
void check_output_path(const std::string& flag, const std::string& path);

// Throws UsageError when two of the outputs (flag, path) name the same file,
// compared after resolving links: one would silently overwrite the other.
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

// Calls `write(temporary)` to write the content to a temporary path beside
// `path` (beside the file a link points to), then renames it over that file.
// On failure the temporary file is removed and the exception propagates.
void write_file_whole(const std::string& path, const std::function<void(const std::string& temporary)>& write);

// write_file_whole for text.
void write_text_file(const std::string& path, const std::string& text);

// Writes `text` to standard output; throws UsageError naming `what` ("--help")
// when it can't be written ("--help > /dev/full"), so that the exit code says so.
void print_to_stdout(const std::string& text, const std::string& what);

}  // namespace csg
