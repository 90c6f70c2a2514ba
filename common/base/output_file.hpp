// Output files, written whole or not at all: the content goes to a temporary
// file next to the target, which is then renamed over it, so a reader never
// sees half a file and a failed run leaves the old file (or none) behind.
// Pure C++ (no CUDA): the JSON results, the trace files and stage 04's DOT
// file all go through here.
#pragma once

#include <functional>
#include <string>

namespace csg {

// Throws UsageError ("--<flag> <path>: ...") unless `path` can be created: its
// directory exists and is writable, and the path itself is not a directory.
void check_output_path(const std::string& flag, const std::string& path);

// Calls `write(temporary)` to write the content to a temporary path beside
// `path`, then renames it to `path`. If `write` throws or the rename fails, the
// temporary file is removed and std::runtime_error (naming the path) or the
// writer's exception propagates.
void write_file_whole(const std::string& path, const std::function<void(const std::string& temporary)>& write);

// write_file_whole for text.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace csg
