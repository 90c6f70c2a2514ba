// Output files, written whole or not at all: the content goes to a temporary
// file next to the target, which is then renamed over it, so a reader never
// sees half a file and a failed or interrupted run leaves the old file (or
// none) behind. Only regular files are ever replaced: a device, a FIFO, a
// directory or a file under /proc or /sys is refused, before the run (the
// options' checks) and again at the write. Pure C++ (no CUDA): the JSON
// results, the trace files and stage 04's DOT file all go through here.
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
// If `write` throws or the rename fails, the temporary file is removed and
// std::runtime_error (naming the path) or the writer's exception propagates;
// an existing target that is not a regular file is refused untouched.
void write_file_whole(const std::string& path, const std::function<void(const std::string& temporary)>& write);

// write_file_whole for text.
void write_text_file(const std::string& path, const std::string& text);

// Writes `text` to standard output and flushes it; throws UsageError naming
// `what` ("--help", "--list") when it can't be written (a closed pipe, a full
// disk: "--help > /dev/full"), so that the exit code says it was not shown.
void print_to_stdout(const std::string& text, const std::string& what);

}  // namespace csg
