// Helpers for tests that run the built `adimg` command-line tool: where the binary is, running it
// with a timeout and capturing its output and exit status, and a scratch folder for its files.
#pragma once

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

namespace adimg_test {

namespace fs = std::filesystem;

/// The CLI binary: $ADIMG_CLI, else ../adimg relative to this test executable
/// (build/adimg beside build/tests/adimg_tests).
inline fs::path cli_path() {
    if (const char* env = std::getenv("ADIMG_CLI")) return env;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    return self.parent_path().parent_path() / "adimg";
}

/// Whether the CLI binary exists; if not, a warning saying how to point the tests at it.
/// `what` names the skipped checks in the warning ("tests", "rows").
inline bool have_cli(const char* what = "tests") {
    const fs::path path = cli_path();
    if (!path.empty() && fs::exists(path)) return true;
    WARN("the adimg binary was not found at '" << path.string() << "'; set ADIMG_CLI to run the CLI " << what);
    return false;
}

/// Which of the CLI's streams run_cli captures (the others go where the test's own go, or nowhere).
enum class Capture {
    all,          ///< stdout and stderr together
    stderr_only,  ///< stderr; stdout is discarded
    stdout_only,  ///< stdout; stderr is the test's own
};

struct CliResult {
    int status = -1;     ///< the exit status; 124 if the timeout stopped it, -1 if it died of a signal
    std::string output;  ///< the captured stream(s), see Capture
};

/// Runs a shell command (sh -c), capturing its stdout (and whatever it redirects there) and its
/// exit status (-1 if it died of a signal).
inline CliResult run_shell(const std::string& command) {
    CliResult result;
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::array<char, 4096> buffer{};
    for (std::size_t got; (got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) result.output.append(buffer.data(), got);
    const int raw = pclose(pipe);
    result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    return result;
}

/// The CLI binary, quoted for a command line.
inline std::string quoted_cli() { return "'" + cli_path().string() + "'"; }

/// Runs `adimg arguments` under `timeout`, so that a hanging binary fails the test (exit status
/// 124) instead of stalling the suite. `prefix` goes before the command (shell settings such as
/// "ulimit -f 64;", or "env -u VAR").
inline CliResult run_cli(const std::string& arguments, Capture capture = Capture::all, int timeout_seconds = 120,
                         const std::string& prefix = "") {
    std::string command = prefix + " timeout -k 10 " + std::to_string(timeout_seconds) + " " + quoted_cli() + " " + arguments;
    if (capture == Capture::all) command += " 2>&1";
    if (capture == Capture::stderr_only) command += " 2>&1 >/dev/null";
    return run_shell(command);
}

/// The whole text of a file the CLI wrote ("" when there is none).
inline std::string file_text(const fs::path& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A fresh folder for this test's files, removed at the end.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name)
        : path(fs::temp_directory_path() / ("adimg_" + name + "_" + std::to_string(getpid()))) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    /// The quoted path of `file` in this folder, for a command line.
    std::string operator/(const std::string& file) const { return "'" + (path / file).string() + "'"; }
    fs::path file(const std::string& file) const { return path / file; }
};

}  // namespace adimg_test
