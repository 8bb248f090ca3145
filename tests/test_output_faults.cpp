// Output files at their edges (issue 40, findings 4 and 7): a file size limit ends a write with
// exit 3 and a message instead of SIGXFSZ; a target whose name is as long as the file system
// allows, or that is reached through a symbolic link (dangling included), is written.
// Each table row is one way it used to fail. The CLI tests run the `adimg` binary beside the test
// executable (or $ADIMG_CLI); without it they are skipped.

#include <adimg/io.hpp>
#include <adimg/problems.hpp>

#include <catch2/catch.hpp>

#include "cli_runner.hpp"

#include <fstream>
#include <map>
#include <sstream>
#include <string>
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

/// What a folder holds: each name (hidden ones, the temporaries of a write, included) with the
/// text of its file, "-> where" for a symbolic link, "/" for a folder.
using Folder = std::map<std::string, std::string>;
Folder folder(const fs::path& dir) {
    Folder held;
    for (const auto& entry : fs::directory_iterator(dir)) {
        std::string& what = held[entry.path().filename().string()];
        if (entry.is_symlink()) {
            what = "-> " + fs::read_symlink(entry.path()).string();
        } else if (entry.is_directory()) {
            what = "/";
        } else {
            std::ifstream in(entry.path(), std::ios::binary);
            what.assign(std::istreambuf_iterator<char>(in), {});
        }
    }
    return held;
}

/// An empty scratch directory (the one of `dir`, emptied).
void empty(const TempDir& dir) {
    fs::remove_all(dir.path);
    fs::create_directories(dir.path);
}

}  // namespace

TEST_CASE("A file size limit (ulimit -f) ends a write with exit 3 naming the file and the limit, not with SIGXFSZ",
          "[output-faults][cli]") {
    if (!have_cli()) return;
    const TempDir dir("file_size_limit");
    struct Row {
        const char* blocks;     ///< ulimit -f of the shell (blocks of 512 or 1024 bytes)
        std::string arguments;  ///< followed by the target's path
        std::string target;     ///< the file written, in the scratch directory
        bool exists;            ///< whether the target holds an old file to keep
    };
    const Row rows[] = {
        {"16", "assemble --case U1 --level 7 --out", "A.mtx", true},
        {"16", "assemble --case U1 --level 7 --out", "A.mtx", false},
        {"16", "solve --case U1 --level 7 --backend cpu -q --out", "x.mtx", true},
        {"1", "solve --case U1 --level 4 --backend cpu -q --json", "report.json", false},
    };
    for (const Row& row : rows) {
        empty(dir);
        if (row.exists) std::ofstream(dir.file(row.target)) << "old content\n";  // not through the OutputFile under test
        const std::string limit = std::string("ulimit -f ") + row.blocks + ";";
        // The limit in bytes, as the tool's process gets it from this shell.
        std::string bytes = run_shell(limit + " sed -n 's/^Max file size *\\([0-9]*\\).*/\\1/p' /proc/self/limits").output;
        bytes = bytes.substr(0, bytes.find('\n'));
        const std::string arguments = row.arguments + " " + (dir / row.target);
        const CliResult r = run_cli(arguments, adimg_test::Capture::all, 120, limit);
        INFO(limit << " adimg " << arguments << "\n-> exit " << r.status << " (-1: a signal), output:\n" << r.output);
        CHECK(r.status == 3);
        CHECK(contains(r.output, "cannot write '" + dir.file(row.target).string() + "': File too large"));
        CHECK(contains(r.output, "the file size limit of this process is " + bytes + " bytes; raise it with ulimit -f"));
        CHECK_FALSE(contains(r.output, "wrote"));  // no success reported for what was not written
        // The old file as it was (or none), and no temporary left behind.
        CHECK(folder(dir.path) == (row.exists ? Folder{{row.target, "old content\n"}} : Folder{}));
    }
}

TEST_CASE("Output names as long as the file system allows, and symbolic links (dangling too), are written through",
          "[output-faults]") {
    const TempDir dir("long_names_and_links");
    enum class Via { library, cli };
    struct Row {
        const char* what;
        Via via;
        std::vector<std::pair<std::string, std::string>> links;  ///< link name -> what it points to ("/": in the folder)
        std::string written;                                     ///< the name given to the writer
        std::string lands;                                       ///< where the file must be found
        bool exists;                                             ///< whether `lands` holds an old file
    };
    const std::string long_name = std::string(236, 'n') + ".mtx";  // 240 bytes
    const std::string longest = std::string(251, 'm') + ".txt";     // 255 bytes: NAME_MAX of ext4, tmpfs, xfs
    std::string two_byte;                                           // 250 bytes of 125 two-byte characters
    for (int k = 0; k < 125; ++k) two_byte += "\xc3\xa9";
    // What the CLI rows write: the text of `adimg assemble --case U1 --level 3 --out` to a plain name.
    std::string assembled;
    if (have_cli()) {
        empty(dir);
        REQUIRE(run_cli("assemble --case U1 --level 3 --out " + (dir / "A.mtx")).status == 0);
        assembled = folder(dir.path)["A.mtx"];
    }
    const Row rows[] = {
        {"a 240-byte name", Via::library, {}, long_name, long_name, false},
        {"a 255-byte name replacing a file", Via::library, {}, longest, longest, true},
        {"a 250-byte name of two-byte characters", Via::library, {}, two_byte, two_byte, false},
        {"a dangling link", Via::library, {{"link.txt", "new.txt"}}, "link.txt", "new.txt", false},
        {"a dangling link into another folder", Via::library, {{"link.txt", "other/new.txt"}}, "link.txt", "other/new.txt", false},
        {"a dangling absolute link", Via::library, {{"link.txt", "/other/new.txt"}}, "link.txt", "other/new.txt", false},
        {"a chain of links that dangles", Via::library, {{"a.txt", "b.txt"}, {"b.txt", "other/c.txt"}}, "a.txt", "other/c.txt", false},
        {"adimg assemble --out with a 240-byte name", Via::cli, {}, long_name, long_name, false},
        {"adimg assemble --out through a dangling link", Via::cli, {{"link.mtx", "other/A.mtx"}}, "link.mtx", "other/A.mtx", false},
    };
    for (const Row& row : rows) {
        if (row.via == Via::cli && !have_cli()) continue;
        empty(dir);
        fs::create_directories(dir.file("other"));
        // An absolute link points into the scratch folder.
        auto target_of = [&](const std::string& points_to) { return points_to[0] == '/' ? dir.path.string() + points_to : points_to; };
        for (const auto& [link, points_to] : row.links) fs::create_symlink(target_of(points_to), dir.file(link));
        if (row.exists) std::ofstream(dir.file(row.lands)) << "old\n";  // not through the OutputFile under test
        INFO(row.what << ": writing '" << row.written << "' (" << row.written.size() << " bytes)");
        if (row.via == Via::library) {
            try {
                adimg::write_text_file(dir.file(row.written), "new\n");
            } catch (const adimg::write_error& e) {
                FAIL_CHECK(e.what());
            }
        } else {
            const CliResult r = run_cli("assemble --case U1 --level 3 --out " + (dir / row.written));
            INFO("-> exit " << r.status << ", output:\n" << r.output);
            CHECK(r.status == 0);
        }
        // The new text where the links end, every link as it was, nothing else (no temporary).
        Folder top = {{"other", "/"}}, other;
        for (const auto& [link, points_to] : row.links) top[link] = "-> " + target_of(points_to);
        const bool in_other = row.lands.rfind("other/", 0) == 0;
        (in_other ? other[row.lands.substr(6)] : top[row.lands]) = row.via == Via::library ? "new\n" : assembled;
        CHECK(folder(dir.path) == top);
        CHECK(folder(dir.file("other")) == other);
    }
}
