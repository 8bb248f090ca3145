// Nothing lost, nothing silently wrong, on the way out of the `adimg` tool and at its edges: a
// write that fails (a full disk: /dev/full, a 64 KiB tmpfs, a file size limit, on an output file
// or the standard output) exits 3 naming the file and leaves the target as it was; an output
// through a symbolic link is checked where the link ends, before the work; a signal during a
// write leaves no partial file; a failed solve writes no solution unless asked to; the JSON
// report parses with an independent parser whatever the names hold; options that would be
// ignored or contradict each other are errors; reading is bounded; the tool runs OpenMP with the
// passive wait policy. Each table row is one way of getting it wrong. The tests run the `adimg`
// binary beside the test executable (or $ADIMG_CLI); without it they are skipped.

#include <adimg/io.hpp>
#include <adimg/problems.hpp>

#include <catch2/catch.hpp>

#include "cli_runner.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
using adimg_test::CliResult;
using adimg_test::have_cli;
using adimg_test::run_cli;
using adimg_test::run_shell;
using adimg_test::TempDir;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) text.replace(at, from.size(), to);
    return text;
}

void write_file(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The names in a directory, hidden ones (the temporaries of a write) included.
std::set<std::string> listing(const fs::path& dir) {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
    return names;
}

/// A U1 system on the 9 x 9 grid as Matrix Market files in `dir`: A.mtx and b.mtx.
void write_u1_system(const TempDir& dir) {
    const adimg::TensorMesh mesh = adimg::builtin_case("U1").mesh(3);
    adimg::write_matrix_market(dir.file("A.mtx"), adimg::to_eigen(adimg::assemble_stiffness(mesh)));
    adimg::write_matrix_market(dir.file("b.mtx"), adimg::assemble_load(mesh, {1.0, 1.0}));
}

/// How this process may mount a small tmpfs: in a user and mount namespace of its own
/// (unshare -rm), in a mount namespace (unshare -m, as root), or not at all ("").
std::string namespace_for_mounting() {
    for (const char* command : {"unshare -rm", "unshare -m"})
        if (run_shell(std::string(command) + " sh -c 'mount -t tmpfs -o size=64k tmpfs /mnt 2>/dev/null || mount -t tmpfs -o size=64k tmpfs /tmp' >/dev/null 2>&1")
                .status == 0)
            return command;
    return "";
}

}  // namespace

TEST_CASE("A write that fails exits 3, names the file and leaves the target as it was", "[cli][output]") {
    if (!have_cli()) return;
    const TempDir dir("write_fails");
    // A file size limit stands in for a full disk where the test may not mount one: writes past
    // it fail with EFBIG ("File too large"), as they would with ENOSPC. SIGXFSZ is ignored so
    // that the write reports the error instead of killing the process.
    const std::string limited = "trap '' XFSZ; ulimit -f 64;";  // 64 blocks: 32 or 64 KiB
    struct Row {
        std::string arguments;  ///< {dir} is the scratch directory
        std::string prefix;     ///< shell settings before the command
        std::string target;     ///< the file named in the message
        std::string reason;
    };
    const Row rows[] = {
        {"assemble --case U1 --level 4 --out /dev/full", "", "/dev/full", "No space left on device"},
        {"assemble --case U1 --level 4 --out {dir}/A.mtx --rhs-out /dev/full", "", "/dev/full", "No space left on device"},
        {"solve --case U1 --level 4 --backend cpu -q --json /dev/full", "", "/dev/full", "No space left on device"},
        {"solve --case U1 --level 4 --backend cpu -q --out /dev/full", "", "/dev/full", "No space left on device"},
        {"solve --case U1 --level 4 --solver direct --out /dev/full", "", "/dev/full", "No space left on device"},
        {"assemble --case U1 --level 7 --out {dir}/old.mtx", limited, "{dir}/old.mtx", "File too large"},
        {"solve --case U1 --level 7 --backend cpu -q --out {dir}/old.mtx", limited, "{dir}/old.mtx", "File too large"},
    };
    for (const Row& row : rows) {
        fs::remove_all(dir.path);
        fs::create_directories(dir.path);
        write_file(dir.file("old.mtx"), "old content\n");
        const std::string arguments = replaced(row.arguments, "{dir}", dir.path.string());
        const std::string target = replaced(row.target, "{dir}", dir.path.string());
        const CliResult r = run_cli(arguments, adimg_test::Capture::stderr_only, 120, row.prefix);
        INFO(row.prefix << " adimg " << arguments << "\n-> exit " << r.status << ", stderr:\n" << r.output);
        CHECK(r.status == 3);
        CHECK(contains(r.output, "cannot write '" + target + "': " + row.reason));
        // The old file as it was, and no temporary left behind (A.mtx of the --rhs-out row is complete).
        CHECK(read_file(dir.file("old.mtx")) == "old content\n");
        for (const std::string& name : listing(dir.path)) CHECK((name == "old.mtx" || name == "A.mtx"));
        if (fs::exists(dir.file("A.mtx"))) CHECK(adimg::read_matrix_market_matrix(dir.file("A.mtx")).rows() == 17 * 17);
    }
}

TEST_CASE("A full file system (a 64 KiB tmpfs): exit 3, the target untouched, no temporary left", "[cli][output]") {
    if (!have_cli()) return;
    const std::string unshare = namespace_for_mounting();
    if (unshare.empty()) {
        WARN("this process may not mount a tmpfs (neither `unshare -rm` nor `unshare -m` works here): the full file "
             "system is checked through /dev/full and a file size limit only");
        return;
    }
    const TempDir dir("full_fs");
    const std::string full = (dir.path / "full").string(), stderr_file = (dir.path / "stderr.txt").string();
    fs::create_directories(full);
    const std::string rows[] = {
        "assemble --case U1 --level 6 --out {full}/A.mtx",             // replaces a file
        "assemble --case U1 --level 6 --out {full}/new.mtx",           // makes a new one
        "solve --case U1 --level 6 --backend cpu -q --out {full}/A.mtx",
        "solve --case U1 --level 6 --solver direct --out {full}/x.mtx",
    };
    for (const std::string& row : rows) {
        const std::string arguments = replaced(row, "{full}", full);
        const std::string target = arguments.substr(arguments.rfind(' ') + 1);
        // In a mount namespace of its own: a 64 KiB tmpfs holding A.mtx = "old"; the tool's
        // stderr goes outside it; then what the tmpfs holds, and A.mtx.
        const fs::path script = dir.path / "run.sh";
        write_file(script, "mount -t tmpfs -o size=64k tmpfs '" + full + "' || exit 99\nprintf 'old\\n' > '" + full +
                               "/A.mtx'\n" + adimg_test::quoted_cli() + " " + arguments + " >/dev/null 2>'" + stderr_file +
                               "'\necho status=$?\ncat '" + stderr_file + "'\necho ==\nls -A '" + full +
                               "'\necho ==\ncat '" + full + "/A.mtx'\n");
        const CliResult r = run_shell(unshare + " sh '" + script.string() + "' 2>&1");
        INFO("in a 64 KiB tmpfs: adimg " << arguments << "\n" << r.output);
        CHECK(contains(r.output, "status=3\n"));
        CHECK(contains(r.output, "cannot write '" + target + "': No space left on device"));
        CHECK(contains(r.output, "==\nA.mtx\n==\nold\n"));  // nothing else in the tmpfs, A.mtx as it was
    }
    // A read-only file system takes no new file: refused before any work (exit 2).
    const fs::path script = dir.path / "read_only.sh";
    write_file(script, "mount -t tmpfs -o ro,size=64k tmpfs '" + full + "' || exit 99\n" + adimg_test::quoted_cli() +
                           " solve --case U1 --level 4 --backend cpu --out '" + full + "/x.mtx' 2>&1\necho status=$?\n");
    const CliResult r = run_shell(unshare + " sh '" + script.string() + "' 2>&1");
    INFO("a read-only tmpfs:\n" << r.output);
    CHECK(contains(r.output, "status=2\n"));
    CHECK(contains(r.output, "cannot write '" + full + "/x.mtx': the directory '" + full +
                                 "' does not allow new files (Read-only file system)"));
    CHECK_FALSE(contains(r.output, "status converged"));
}

TEST_CASE("An output through a symbolic link is checked where the link ends: a missing or read-only directory, or a "
          "loop of links, is refused before the work (exit 2)", "[cli][output][links]") {
    if (!have_cli()) return;
    const TempDir dir("output_links");
    const std::string d = dir.path.string();
    struct Row {
        std::vector<std::pair<std::string, std::string>> links;  ///< link name -> what it points to ({dir} replaced)
        std::string arguments;                                   ///< {dir} is the scratch directory
        std::string message;                                     ///< in stderr ({dir} replaced)
    };
    const std::string solve = "solve --case U1 --level 4 --backend cpu";
    const Row rows[] = {
        // A dangling link into a directory that does not exist, absolute or relative, and a chain of two.
        {{{"link.mtx", "{dir}/missing/x.mtx"}}, solve + " --out {dir}/link.mtx",
         "cannot write '{dir}/link.mtx' (its symbolic link ends at '{dir}/missing/x.mtx'): the directory "
         "'{dir}/missing' does not exist"},
        {{{"link.mtx", "missing/x.mtx"}}, solve + " --out {dir}/link.mtx",
         "the directory '{dir}/missing' does not exist"},
        {{{"link.mtx", "hop.mtx"}, {"hop.mtx", "missing/x.mtx"}}, solve + " --out {dir}/link.mtx",
         "cannot write '{dir}/link.mtx' (its symbolic link ends at '{dir}/missing/x.mtx'): the directory "
         "'{dir}/missing' does not exist"},
        {{{"r.json", "{dir}/missing/r.json"}}, solve + " --json {dir}/r.json", "the directory '{dir}/missing' does not exist"},
        {{{"A.mtx", "{dir}/missing/A.mtx"}}, "assemble --case U1 --level 4 --out {dir}/A.mtx",
         "the directory '{dir}/missing' does not exist"},
        {{{"b.mtx", "{dir}/missing/b.mtx"}}, "assemble --case U1 --level 4 --out {dir}/A.mtx --rhs-out {dir}/b.mtx",
         "the directory '{dir}/missing' does not exist"},
        {{{"x.mtx", "{dir}/missing/x.mtx"}}, "solve --case U1 --level 4 --solver direct --out {dir}/x.mtx",
         "the directory '{dir}/missing' does not exist"},
        // A loop of links.
        {{{"a.mtx", "b.mtx"}, {"b.mtx", "a.mtx"}}, solve + " --out {dir}/a.mtx",
         "cannot write '{dir}/a.mtx': its symbolic links form a loop"},
    };
    for (const Row& row : rows) {
        fs::remove_all(dir.path);
        fs::create_directories(dir.path);
        for (const auto& [name, to] : row.links) fs::create_symlink(replaced(to, "{dir}", d), dir.file(name));
        const std::string arguments = replaced(row.arguments, "{dir}", d);
        const CliResult r = run_cli(arguments, adimg_test::Capture::all);
        INFO("adimg " << arguments << "\n-> exit " << r.status << ":\n" << r.output);
        CHECK(r.status == 2);
        CHECK(contains(r.output, replaced(row.message, "{dir}", d)));
        CHECK_FALSE(contains(r.output, "status "));  // refused before the solve
        CHECK_FALSE(fs::exists(dir.file("missing")));
        for (const auto& [name, to] : row.links) CHECK(fs::is_symlink(fs::symlink_status(dir.file(name))));
    }
    // A dangling link into a directory that takes new files is written through: its target made,
    // the link kept.
    fs::remove_all(dir.path);
    fs::create_directories(dir.file("there"));
    fs::create_symlink("there/x.mtx", dir.file("link.mtx"));
    const CliResult written = run_cli(solve + " --out " + (dir / "link.mtx"), adimg_test::Capture::all);
    INFO("a dangling link into an existing directory:\n" << written.output);
    CHECK(written.status == 0);
    CHECK(fs::is_symlink(fs::symlink_status(dir.file("link.mtx"))));
    CHECK(adimg::read_matrix_market_vector(dir.file("there/x.mtx")).size() == 17 * 17);
}

TEST_CASE("An output through a symbolic link into a read-only directory is refused before the work (exit 2)",
          "[cli][output][links]") {
    if (!have_cli()) return;
    const TempDir dir("output_link_read_only");
    const std::string target = dir.file("ro").string() + "/x.mtx", link = dir.file("link.mtx").string();
    fs::create_directories(dir.file("ro"));
    fs::create_symlink(target, link);
    const std::string expected = "cannot write '" + link + "' (its symbolic link ends at '" + target + "'): the directory '" +
                                 dir.file("ro").string() + "' does not allow new files";
    const std::string command = adimg_test::quoted_cli() + " solve --case U1 --level 4 --backend cpu --out '" + link + "' 2>&1";
    if (geteuid() != 0) {  // permissions bind an ordinary user
        fs::permissions(dir.file("ro"), fs::perms::owner_read | fs::perms::owner_exec);
        const CliResult r = run_shell(command + "; echo status=$?");
        fs::permissions(dir.file("ro"), fs::perms::owner_all);
        INFO("a directory of mode 0500:\n" << r.output);
        CHECK(contains(r.output, "status=2\n"));
        CHECK(contains(r.output, expected + " (Permission denied)"));
        CHECK_FALSE(contains(r.output, "status converged"));
    }
    // A read-only file system binds root too.
    const std::string unshare = namespace_for_mounting();
    if (unshare.empty()) {
        WARN("this process may not mount a tmpfs (neither `unshare -rm` nor `unshare -m` works here): a link into a "
             "read-only file system is not checked");
        return;
    }
    const fs::path script = dir.path / "read_only.sh";
    write_file(script, "mount -t tmpfs -o ro,size=64k tmpfs '" + dir.file("ro").string() + "' || exit 99\n" + command +
                           "\necho status=$?\n");
    const CliResult r = run_shell(unshare + " sh '" + script.string() + "' 2>&1");
    INFO("a link into a read-only tmpfs:\n" << r.output);
    CHECK(contains(r.output, "status=2\n"));
    CHECK(contains(r.output, expected + " (Read-only file system)"));
    CHECK_FALSE(contains(r.output, "status converged"));
}

TEST_CASE("Standard output past a file size limit: exit 3 with the write error, not death by SIGXFSZ",
          "[cli][output]") {
    if (!have_cli()) return;
    const TempDir dir("stdout_limit");
    // A limit of 0 bytes: the first write fails, whatever a command prints. SIGXFSZ keeps its
    // default action here, which ends the process unless the tool ignores it.
    const std::string limited = "ulimit -f 0;";
    const std::string too_large =
        "error: writing the standard output failed: File too large (the file size limit of this process is 0 bytes; "
        "raise it with ulimit -f)";
    struct Row {
        std::string arguments;
        std::string message;
    };
    const Row rows[] = {
        {"--version", "adimg --version: " + too_large},
        {"solve --help", "adimg solve: " + too_large},
        {"solve --case U1 --level 5 --backend cpu", "adimg solve: " + too_large},
        {"solve --case U1 --level 5 --backend cpu -q", "adimg solve: " + too_large},
        {"info --case A2 --level 5", "adimg info: " + too_large},
        {"assemble --case U1 --level 5 --out /dev/stdout", "cannot write '/dev/stdout': File too large"},
    };
    for (const Row& row : rows) {
        const std::string out = dir.file("out.txt").string();
        fs::remove(out);
        // stderr to the pipe, stdout to the limited file.
        const CliResult r = run_cli(row.arguments + " 2>&1 >'" + out + "'", adimg_test::Capture::stdout_only, 120, limited);
        INFO(limited << " adimg " << row.arguments << " > out.txt\n-> exit " << r.status << ", stderr:\n" << r.output);
        CHECK(r.status == 3);
        CHECK(contains(r.output, row.message));
        CHECK(fs::file_size(out) == 0);
    }
}

TEST_CASE("A signal during a large write leaves no partial file and ends the tool as the signal does", "[cli][output]") {
    if (!have_cli()) return;
    const TempDir dir("signal");
    for (const int signal_number : {SIGTERM, SIGINT}) {
        fs::remove_all(dir.path);
        fs::create_directories(dir.path);
        const fs::path target = dir.file("A.mtx");
        write_file(target, "old\n");
        const pid_t child = fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            // A background job of a non-interactive shell ignores SIGINT: the tool gets the defaults.
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            std::freopen("/dev/null", "w", stdout);
            std::freopen("/dev/null", "w", stderr);
            const std::string cli = adimg_test::cli_path().string(), out = target.string();
            execl(cli.c_str(), "adimg", "assemble", "--case", "U1", "--level", "9", "--out", out.c_str(), nullptr);
            _exit(127);
        }
        // Wait until the write is under way: a temporary beside the target with data in it (or,
        // written in place, the target itself growing), then send the signal.
        bool writing = false;
        const auto start = std::chrono::steady_clock::now();
        while (!writing && std::chrono::steady_clock::now() - start < std::chrono::seconds(120)) {
            std::error_code ec;
            for (const auto& entry : fs::directory_iterator(dir.path, ec)) {
                const auto size = fs::file_size(entry.path(), ec);
                if (!ec && size > 65536) writing = true;
            }
            if (waitpid(child, nullptr, WNOHANG) == child) FAIL("the tool ended before the write could be interrupted");
            std::this_thread::sleep_for(std::chrono::microseconds(500));
        }
        REQUIRE(writing);
        kill(child, signal_number);
        int status = 0;
        REQUIRE(waitpid(child, &status, 0) == child);
        INFO("signal " << signal_number << ": the tool " << (WIFSIGNALED(status) ? "died of signal " : "exited with ")
                       << (WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status)));
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == signal_number);
        CHECK(listing(dir.path) == std::set<std::string>{"A.mtx"});  // the temporary is gone
        CHECK(read_file(target) == "old\n");                          // the target as it was
    }
}

TEST_CASE("A failed solve writes no --out unless --write-failed, which the file and the report then say", "[cli][output]") {
    if (!have_cli()) return;
    const TempDir dir("failed_solve");
    write_u1_system(dir);
    // No smoothing and a 3 x 3 coarsest grid: the cycle cannot reduce the defect.
    const std::string no_smoothing = " --backend cpu --smoother jacobi --pre-smooth 0 --post-smooth 0 --coarse-level 1";
    struct Row {
        std::string arguments;
        std::string status;
    };
    const Row rows[] = {
        {"solve --case U1 --level 5" + no_smoothing, "stagnated"},
        {"solve --case U1 --level 7 --backend cpu --max-iterations 1", "max-iterations"},
        {"solve --matrix " + (dir / "A.mtx") + " --grid 9x9 --rhs " + (dir / "b.mtx") + no_smoothing, "stagnated"},
    };
    for (const Row& row : rows) {
        for (const bool write_failed : {false, true}) {
            fs::remove(dir.file("x.mtx"));
            const std::string arguments = row.arguments + " --out " + (dir / "x.mtx") + " --json " + (dir / "r.json") +
                                          (write_failed ? " --write-failed" : "");
            const CliResult r = run_cli(arguments, adimg_test::Capture::stdout_only, 120);
            INFO("adimg " << arguments << "\n-> exit " << r.status << ":\n" << r.output);
            CHECK(r.status == 1);
            CHECK(contains(r.output, "status " + row.status));
            const std::string json = read_file(dir.file("r.json"));
            if (!write_failed) {
                CHECK_FALSE(fs::exists(dir.file("x.mtx")));
                CHECK(contains(r.output, "did not write " + dir.file("x.mtx").string()));
                CHECK(contains(json, "\"solution_file\": null"));
                continue;
            }
            REQUIRE(fs::exists(dir.file("x.mtx")));
            const std::string text = read_file(dir.file("x.mtx"));
            const std::string comment = text.substr(text.find('\n') + 1, text.find('\n', text.find('\n') + 1) - text.find('\n') - 1);
            INFO("the comment line: " << comment);
            CHECK(contains(comment, "--write-failed: NOT A SOLUTION: the solve did not converge (status " + row.status));
            CHECK(contains(r.output, "it is NOT a solution"));
            CHECK(contains(json, "\"solution_file\": \"" + dir.file("x.mtx").string() + "\""));
            CHECK(adimg::read_matrix_market_vector(dir.file("x.mtx")).size() > 0);
        }
    }
}

TEST_CASE("Options that would be ignored or contradict each other are errors naming both", "[cli][bad-input]") {
    if (!have_cli()) return;
    const TempDir dir("conflicts");
    write_u1_system(dir);
    const std::string A = dir / "A.mtx", b = dir / "b.mtx", u1 = "solve --case U1 --level 3 ";
    const std::string matrix = "solve --matrix " + A + " --grid 9x9 --rhs " + b + " ";
    struct Row {
        std::string arguments;
        std::string first, second;  ///< what the message names
    };
    const Row rows[] = {
        {u1 + "--backend cuda --solver direct", "--backend", "--solver direct"},
        {u1 + "--backend cpu --solver direct", "--backend", "--solver direct"},
        {u1 + "--smoother jacobi --solver direct", "--smoother", "--solver direct"},
        {u1 + "--digits 6 --solver direct", "--digits", "--solver direct"},
        {u1 + "--coarse-operators galerkin --solver direct", "--coarse-operators", "--solver direct"},
        {u1 + "--precision mixed --solver direct", "--precision mixed", "--solver direct"},
        {matrix + "--level 3", "--level", "--matrix"},
        {matrix + "--coarse-operators galerkin", "--coarse-operators", "--matrix"},
        {u1 + "--omega 0.5", "--omega", "--smoother adi"},
        {u1 + "--smoother gauss-seidel --omega 0.5", "--omega", "--smoother gauss-seidel"},
        {u1 + "--smoother jacobi --line-omega 0.5", "--line-omega", "--smoother jacobi"},
        {u1 + "--precision double --inner cycles:2", "--inner", "--precision double"},
        {u1 + "--precision single --no-fallback", "--no-fallback", "--precision single"},
        {u1 + "--precision double --inner-max-cycles 4", "--inner-max-cycles", "--precision double"},
        {u1 + "--inner cycles:2 --inner-max-cycles 4", "--inner-max-cycles", "--inner cycles:2"},
        {u1 + "--write-failed", "--write-failed", "--out"},
        {u1 + "--out ''", "--out is given an empty value", ""},
        {u1 + "--json ''", "--json is given an empty value", ""},
        {"solve --case-file '' --level 3", "--case-file is given an empty value", ""},
        {"assemble --case U1 --level 3 --out " + (dir / "M.mtx") + " --rhs-out ''", "--rhs-out is given an empty value", ""},
        {u1 + "--out " + (dir / "x") + " --json " + (dir / "x"), "--out and --json name the same file", ""},
        {u1 + "--out " + (dir / "x") + " --json " + (dir / "sub/../x"), "--out and --json name the same file", ""},
        {matrix + "--out " + A, "--out names the file that --matrix reads", ""},
        {matrix + "--json " + b, "--json names the file that --rhs reads", ""},
    };
    fs::create_directories(dir.file("sub"));
    for (const Row& row : rows) {
        const CliResult r = run_cli(row.arguments, adimg_test::Capture::stderr_only, 60);
        INFO("adimg " << row.arguments << "\n-> exit " << r.status << ", stderr:\n" << r.output);
        CHECK(r.status == 2);
        CHECK(contains(r.output, row.first));
        CHECK(contains(r.output, row.second));
    }
    CHECK_FALSE(fs::exists(dir.file("x")));
    CHECK(adimg::read_matrix_market_matrix(dir.file("A.mtx")).rows() == 81);  // the input as it was
}

TEST_CASE("The JSON report parses with python3's json module whatever the names hold: control characters, "
          "invalid UTF-8",
          "[cli][json]") {
    if (!have_cli()) return;
    if (run_shell("python3 -c 'import json' 2>/dev/null").status != 0) {
        WARN("python3 is not available here: the JSON report is not parsed back");
        return;
    }
    const TempDir dir("json");
    struct Row {
        const char* what;
        std::string name;      ///< the case's name as the case file holds it
        std::string expected;  ///< the name as the parsed JSON gives it, in UTF-8
    };
    const Row rows[] = {
        {"quote and backslash", "A\"B\\C", "A\"B\\C"},
        {"control characters", "A\x01" "B\x1f" "C\x7f" "D\x08" "E\x0c" "F", "A\x01" "B\x1f" "C\x7f" "D\x08" "E\x0c" "F"},
        {"a tab and a carriage return inside", "A\tB\rC", "A\tB\rC"},
        {"invalid UTF-8: a lone byte, a truncated sequence", "A\xff" "B\xc3(C", "A\xef\xbf\xbd" "B\xef\xbf\xbd(C"},
        {"invalid UTF-8: an overlong slash, a surrogate", "\xc0\xaf-\xed\xa0\x80",
         "\xef\xbf\xbd\xef\xbf\xbd-\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {"valid UTF-8 stays", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"},
    };
    auto hex = [](const std::string& bytes) {
        std::string out;
        char two[3];
        for (unsigned char c : bytes) {
            std::snprintf(two, sizeof two, "%02x", c);
            out += two;
        }
        return out;
    };
    for (const Row& row : rows) {
        write_file(dir.file("case.cfg"), "name = " + row.name + "\n[domain]\nwidth = 1\nheight = 1\n");
        const CliResult solve = run_cli("solve --case-file " + (dir / "case.cfg") + " --level 3 --backend cpu -q --json " +
                                            (dir / "r.json"),
                                        adimg_test::Capture::all, 60);
        INFO(row.what << ": adimg solve -> exit " << solve.status << ":\n" << solve.output);
        REQUIRE(solve.status == 0);
        const CliResult parsed = run_shell("python3 -c \"import json, sys; print(json.load(open(sys.argv[1], "
                                           "encoding='utf-8'))['case'].encode('utf-8').hex())\" " +
                                           (dir / "r.json") + " 2>&1");
        INFO("python3: " << parsed.output << "\nthe file:\n" << read_file(dir.file("r.json")));
        CHECK(parsed.status == 0);
        CHECK(parsed.output == hex(row.expected) + "\n");
    }
    // A matrix file whose name holds a tab and an invalid byte: the "matrix" entry.
    write_u1_system(dir);
    const std::string odd = dir.file("A\t\xff.mtx").string();
    fs::copy_file(dir.file("A.mtx"), odd);
    const CliResult solve = run_cli("solve --matrix '" + odd + "' --grid 9x9 --rhs " + (dir / "b.mtx") +
                                        " --backend cpu -q --json " + (dir / "m.json"),
                                    adimg_test::Capture::all, 60);
    INFO(solve.output);
    REQUIRE(solve.status == 0);
    const CliResult parsed = run_shell("python3 -c \"import json, sys; print(json.load(open(sys.argv[1], "
                                       "encoding='utf-8'))['matrix'].encode('utf-8').hex())\" " +
                                       (dir / "m.json") + " 2>&1");
    CHECK(parsed.output == hex(replaced(odd, "\xff", "\xef\xbf\xbd")) + "\n");
}

TEST_CASE("Reading is bounded: an endless or oversized input ends with a message, not with memory exhausted",
          "[cli][bad-input]") {
    if (!have_cli()) return;
    const TempDir dir("bounded");
    write_u1_system(dir);
    std::string comments;
    for (int k = 0; k < 40000; ++k) comments += "% a comment line of fifty bytes or so, again and again\n";
    write_file(dir.file("comments_first.mtx"), "%%MatrixMarket matrix array real general\n" + comments + "81 1\n");
    write_file(dir.file("comments_after.mtx"), "%%MatrixMarket matrix array real general\n81 1\n" + comments);
    write_file(dir.file("long.cfg"), "name = T\n" + replaced(comments, "%", "#"));
    const std::string b = dir / "b.mtx", A = dir / "A.mtx";
    struct Row {
        std::string arguments;
        std::string says;
    };
    const Row rows[] = {
        {"solve --matrix /dev/zero --grid 9x9 --rhs " + b, "/dev/zero:1: the line is longer than 65536 bytes"},
        {"solve --matrix " + A + " --grid 9x9 --rhs /dev/zero", "/dev/zero:1: the line is longer than 65536 bytes"},
        {"solve --matrix " + A + " --grid 9x9 --rhs " + b + " --x-widths /dev/zero --y-widths " + b,
         "/dev/zero:1: the line is longer than 65536 bytes"},
        {"solve --case-file /dev/zero", "/dev/zero:1: the line is longer than 4096 bytes"},
        {"info --case-file /dev/zero", "/dev/zero:1: the line is longer than 4096 bytes"},
        {"solve --matrix " + A + " --grid 9x9 --rhs " + (dir / "comments_first.mtx"),
         "bytes of banner, comments and blank lines before the size line"},
        {"solve --matrix " + A + " --grid 9x9 --rhs " + (dir / "comments_after.mtx"),
         "the file goes on beyond the 1069312 bytes that its 81 announced entries may take"},
        {"info --case-file " + (dir / "long.cfg"), "the file holds more than 1048576 bytes"},
    };
    // Without the bounds, /dev/zero grows memory until the process is killed: cap the address
    // space (not under AddressSanitizer, which reserves terabytes of it).
#if defined(__SANITIZE_ADDRESS__)
    const std::string cap;
#else
    const std::string cap = "ulimit -v 4000000;";
#endif
    for (const Row& row : rows) {
        const CliResult r = run_cli(row.arguments, adimg_test::Capture::stderr_only, 60, cap);
        INFO("adimg " << row.arguments << "\n-> exit " << r.status << ", stderr:\n" << r.output);
        CHECK(r.status == 2);
        CHECK(contains(r.output, row.says));
    }
}

TEST_CASE("The tool runs OpenMP with the passive wait policy unless the environment chooses", "[cli][openmp]") {
    if (!have_cli()) return;
    struct Row {
        std::string environment;
        std::string policy, spin;  ///< as GNU OpenMP displays them (OMP_DISPLAY_ENV)
    };
    const Row rows[] = {
        {"env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT", "'PASSIVE'", "'0'"},
        {"env -u GOMP_SPINCOUNT OMP_WAIT_POLICY=active", "'ACTIVE'", "'30000000000'"},
        {"env -u OMP_WAIT_POLICY GOMP_SPINCOUNT=1000", "'PASSIVE'", "'1000'"},
    };
    for (const Row& row : rows) {
        const CliResult r = run_cli("info --case U1 --level 2", adimg_test::Capture::all, 60,
                                    row.environment + " OMP_DISPLAY_ENV=verbose");
        INFO(row.environment << ": " << r.output);
        CHECK(r.status == 0);
        const auto spin = r.output.rfind("GOMP_SPINCOUNT = ");
        if (spin == std::string::npos) {
            WARN("the OpenMP runtime is not GNU OpenMP: its spin count is not displayed");
            return;
        }
        // The last display is the one of the process that ran (the tool may have restarted itself).
        CHECK(r.output.compare(spin + 17, row.spin.size(), row.spin) == 0);
        CHECK(r.output.compare(r.output.rfind("OMP_WAIT_POLICY = ") + 18, row.policy.size(), row.policy) == 0);
    }
}
