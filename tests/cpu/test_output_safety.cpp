// Output files can't hurt: a device, a FIFO, a directory or a file under
// /proc or /sys is never replaced, two outputs of one run never name the same
// file, and regular files are written whole or not at all. Checked on the
// library calls (on nodes made in a temporary folder) and on every stage
// binary, before any CUDA call (so on a machine without a GPU too).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "base/errors.hpp"
#include "base/output_file.hpp"
#include "run_process.hpp"
#include "stage_binaries.hpp"
#include "stage_commands.hpp"
#include "usage_checks.hpp"

namespace csg {
namespace cpu_output_safety {

namespace fs = std::filesystem;

using testing::stage_binaries;

std::string usage_message(const std::function<void()>& call) {
  try {
    call();
  } catch (const UsageError& error) {
    return error.what();
  }
  return "";
}

// A character device node like /dev/null (1:3), made in `dir`; only root may.
bool make_null_device(const std::string& path) { return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0; }

TEST(OutputSafety, AFifoIsRefusedBeforeTheRunAndLeftInPlaceByTheWriter) {
  testing::TempDir dir;
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(usage_message([&] { check_output_path("json", fifo); }).find("is a FIFO"), std::string::npos);
  EXPECT_THROW(write_text_file(fifo, "{}"), std::runtime_error);
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
  EXPECT_EQ(dir.entries().size(), 1U);  // no temporary file left behind
}

TEST(OutputSafety, ASocketIsRefusedAndLeftInPlace) {
  testing::TempDir dir;
  const std::string path = dir.file("socket");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof address.sun_path);
  path.copy(address.sun_path, path.size());
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  ::close(fd);
  EXPECT_NE(usage_message([&] { check_output_path("json", path); }).find("is a socket"), std::string::npos);
  EXPECT_THROW(write_text_file(path, "{}"), std::runtime_error);
  EXPECT_TRUE(fs::is_socket(fs::symlink_status(path)));
  EXPECT_EQ(dir.entries().size(), 1U);
}

TEST(OutputSafety, ARenameThatFailsLeavesNoTemporary) {
  testing::TempDir dir;
  const std::string target = dir.file("out.json");
  // The target becomes a non-empty directory while the temporary is written: the rename fails.
  EXPECT_THROW(write_file_whole(target,
                                [&](const std::string& temporary) {
                                  std::ofstream(temporary) << "{}";
                                  fs::create_directories(target + "/inside");
                                }),
               std::runtime_error);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.json"});
  EXPECT_TRUE(fs::is_directory(target));
}

TEST(OutputSafety, ADeviceNodeIsRefusedAndNeverReplaced) {
  testing::TempDir dir;
  const std::string node = dir.file("null");
  if (!make_null_device(node)) GTEST_SKIP() << "mknod needs root here; the FIFO test covers the same branch";
  EXPECT_NE(usage_message([&] { check_output_path("json", node); }).find("is a device"), std::string::npos);
  EXPECT_THROW(write_text_file(node, "{\"a\": 1}"), std::runtime_error);
  EXPECT_TRUE(fs::is_character_file(fs::symlink_status(node)));  // still the device, not a 9-byte file
  // Through a link to it as well.
  const std::string link = dir.file("link");
  fs::create_symlink(node, link);
  EXPECT_NE(usage_message([&] { check_output_path("json", link); }).find("is a device"), std::string::npos);
  EXPECT_THROW(write_text_file(link, "{}"), std::runtime_error);
  EXPECT_TRUE(fs::is_character_file(fs::symlink_status(node)));
}

TEST(OutputSafety, DirectoriesProcAndSysAreRefused) {
  testing::TempDir dir;
  EXPECT_NE(usage_message([&] { check_output_path("json", dir.path()); }).find("is a directory"), std::string::npos);
  EXPECT_NE(usage_message([&] { check_output_path("json", "/proc/version"); }).find("under /proc"),
            std::string::npos);
  EXPECT_NE(usage_message([&] { check_output_path("trace", "/sys/kernel/new-file"); }).find("under /sys"),
            std::string::npos);
  EXPECT_THROW(write_text_file("/proc/version", "x"), std::runtime_error);
  EXPECT_NE(usage_message([&] { check_output_path("json", dir.file("missing/out.json")); }).find("does not exist"),
            std::string::npos);
}

TEST(OutputSafety, ARegularFileOrANewNameIsAccepted) {
  testing::TempDir dir;
  EXPECT_EQ(usage_message([&] { check_output_path("json", dir.file("new.json")); }), "");
  write_text_file(dir.file("old.json"), "old");
  EXPECT_EQ(usage_message([&] { check_output_path("json", dir.file("old.json")); }), "");
  write_text_file(dir.file("old.json"), "new");
  EXPECT_EQ(testing::read_text(dir.file("old.json")), "new");
  EXPECT_EQ(dir.entries().size(), 1U);
}

TEST(OutputSafety, AWriterThatFailsLeavesTheOldFileAndNoTemporary) {
  testing::TempDir dir;
  write_text_file(dir.file("out.json"), "old");
  EXPECT_THROW(write_file_whole(dir.file("out.json"),
                                [](const std::string& temporary) {
                                  std::ofstream(temporary) << "half";
                                  throw std::runtime_error("disk full");
                                }),
               std::runtime_error);
  EXPECT_EQ(testing::read_text(dir.file("out.json")), "old");
  EXPECT_EQ(dir.entries().size(), 1U);
}

TEST(OutputSafety, TwoOutputsNamingOneFileAreRefusedEvenThroughALink) {
  testing::TempDir dir;
  const std::string a = dir.file("a.json");
  EXPECT_NE(usage_message([&] { check_distinct_outputs({{"json", a}, {"trace", a}}); }).find("same file"),
            std::string::npos);
  // A link to a file that does not exist yet: writing through it would create that file.
  fs::create_symlink("a.json", dir.file("b.json"));
  EXPECT_NE(usage_message([&] { check_distinct_outputs({{"json", a}, {"dot", dir.file("b.json")}}); }),
            "");
  EXPECT_NE(usage_message([&] { check_distinct_outputs({{"json", a}, {"dot", dir.path() + "/./a.json"}}); }), "");
  EXPECT_EQ(usage_message([&] { check_distinct_outputs({{"json", a}, {"trace", dir.file("c.json")}, {"dot", ""}}); }),
            "");
}

// Every command of every stage (its lesson and each subcommand), with the
// output options it has: --json everywhere, --trace and --dot where offered.
std::vector<testing::StageCommand> every_command() {
  std::vector<testing::StageCommand> commands;
  for (const std::string& binary : stage_binaries()) {
    for (testing::StageCommand& command : testing::stage_commands(binary)) commands.push_back(std::move(command));
  }
  return commands;
}

TEST(OutputSafety, EveryCommandRefusesUnsafeOutputsWithOneLineAndLeavesThemAlone) {
  int traces = 0;
  for (const testing::StageCommand& command : every_command()) {
    testing::TempDir dir;
    const std::string fifo = dir.file("pipe");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string sub = dir.file("sub");
    fs::create_directory(sub);
    std::vector<testing::BadCase> cases = {
        {{"--json", fifo}, "is a FIFO"},
        {{"--json", sub}, "is a directory"},
        {{"--json", "/proc/version"}, "under /proc"},
    };
    for (const char* output : {"trace", "dot"}) {
      if (!command.has(output)) continue;
      const std::string flag = std::string("--") + output;
      traces += output == std::string("trace") ? 1 : 0;
      cases.push_back({{flag, "/proc/self/status"}, "under /proc"});
      cases.push_back({{flag, fifo}, "is a FIFO"});
      cases.push_back({{"--json", dir.file("x.json"), flag, dir.file("x.json")}, "--json and " + flag + " name the same file"});
    }
    for (const testing::BadCase& bad : cases) {
      const testing::ProcessResult run = testing::run_process(command.argv(bad.args));
      const std::string label = command.label() + " " + ::testing::PrintToString(bad.args);
      EXPECT_EQ(run.exit_code, kExitUsage) << label << "\n" << run.err;
      EXPECT_NE(run.err.find(bad.must_mention), std::string::npos) << label << ": " << run.err;
      EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << label << ": " << run.err;
    }
    EXPECT_TRUE(fs::is_fifo(fs::symlink_status(fifo)));
    EXPECT_TRUE(fs::is_directory(sub));
    EXPECT_EQ(dir.entries().size(), 2U) << command.label();  // the FIFO and the folder, nothing written
  }
  EXPECT_GE(traces, 1) << "no command offers --trace";
}

// The commands that write a DOT file of the captured graph (--dot).
std::vector<testing::StageCommand> dot_writers() {
  std::vector<testing::StageCommand> commands;
  for (testing::StageCommand& command : every_command()) {
    if (command.has("dot")) commands.push_back(std::move(command));
  }
  return commands;
}

TEST(OutputSafety, TheDotWriterRefusesItsDotAndJsonAsOneFileThroughALink) {
  const std::vector<testing::StageCommand> commands = dot_writers();
  ASSERT_FALSE(commands.empty()) << "no command offers --dot";
  for (const testing::StageCommand& command : commands) {
    testing::TempDir dir;
    fs::create_symlink("run.json", dir.file("graph.dot"));
    const testing::ProcessResult run =
        testing::run_process(command.argv({"--dot", dir.file("graph.dot"), "--json", dir.file("run.json")}));
    EXPECT_EQ(run.exit_code, kExitUsage) << command.label() << ": " << run.err;
    EXPECT_NE(run.err.find("name the same file"), std::string::npos) << run.err;
    EXPECT_EQ(dir.entries().size(), 1U);
  }
}

TEST(OutputSafety, TheDotWriterRefusesADeviceAsItsDotFile) {
  testing::TempDir dir;
  const std::string node = dir.file("null");
  if (!make_null_device(node)) GTEST_SKIP() << "mknod needs root here";
  const std::vector<testing::StageCommand> commands = dot_writers();
  ASSERT_FALSE(commands.empty()) << "no command offers --dot";
  for (const testing::StageCommand& command : commands) {
    const testing::ProcessResult run = testing::run_process(command.argv({"--dot", node}));
    EXPECT_EQ(run.exit_code, kExitUsage) << command.label() << ": " << run.err;
    EXPECT_NE(run.err.find("--dot '" + node + "': is a device"), std::string::npos) << run.err;
    EXPECT_TRUE(fs::is_character_file(fs::symlink_status(node)));
  }
}

TEST(OutputSafety, ANameLongerThanTheFileSystemTakesIsRefusedBeforeTheRun) {
  testing::TempDir dir;
  const std::string long_name = dir.file(std::string(300, 'r') + ".json");
  const std::string message = usage_message([&] { check_output_path("json", long_name); });
  EXPECT_NE(message.find("--json '" + long_name + "': a name in it is 305 bytes long"), std::string::npos) << message;
  // 255 bytes, the most ext4 and tmpfs take: accepted, and written whole although
  // the temporary's name (the name and ".tmp.<pid>") would be longer.
  const std::string longest = dir.file(std::string(250, 'r') + ".json");
  EXPECT_EQ(usage_message([&] { check_output_path("json", longest); }), "");
  write_text_file(longest, "{}");
  EXPECT_EQ(testing::read_text(longest), "{}");
  EXPECT_EQ(dir.entries().size(), 1U);
  // A path longer than the system takes, through names that each fit.
  std::string deep = dir.path();
  while (deep.size() < 4200) deep += "/" + std::string(200, 'd');
  EXPECT_NE(usage_message([&] { check_output_path("json", deep + "/out.json"); }).find("bytes long once resolved"),
            std::string::npos);
}

TEST(OutputSafety, AControlCharacterInAPathIsShownEscapedOnOneLine) {
  testing::TempDir dir;
  const std::string message = usage_message([&] { check_output_path("trace", dir.path() + "/a\nb\x1b[2J/t.json"); });
  EXPECT_NE(message.find("a\\nb\\x1b[2J"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
}

}  // namespace cpu_output_safety
}  // namespace csg
