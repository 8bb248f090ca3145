// Output files that never report success for a failed write and never leave a half-written file
// (include/adimg/io.hpp, OutputFile): written to a temporary beside the target and renamed over it
// at commit, the temporaries removed on SIGINT, SIGTERM and SIGHUP, SIGXFSZ ignored so that a file
// size limit fails the write instead of ending the process.

#include <adimg/error.hpp>
#include <adimg/io.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string>
#include <system_error>

namespace adimg {
namespace {

/// The temporaries of open OutputFiles, for the signal handler: a fixed table of paths that the
/// handler reads without locks (state 2: registered).
struct Temporary {
    std::atomic<int> state{0};  ///< 0 free, 1 being filled, 2 registered
    char path[PATH_MAX] = {};
};
constexpr int max_temporaries = 16;
Temporary temporaries[max_temporaries];
/// The signals handled while an OutputFile is open: the first three end the process (after
/// remove_temporaries_and_reraise), SIGXFSZ (a write beyond the file size limit, ulimit -f) is
/// ignored, so that the write fails with EFBIG and is reported like a full disk.
constexpr int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
constexpr int cleanup_signal_count = 4;
struct sigaction previous_actions[cleanup_signal_count];
bool handler_installed[cleanup_signal_count] = {};
std::mutex temporaries_mutex;  ///< guards the table's slots and open_files
int open_files = 0;  ///< OutputFiles open: the handlers are installed while there is one

/// Removes every registered temporary, gives the signal its previous disposition and raises it
/// again: the default action ends the process as the signal would have, a handler of the
/// program runs after this one returns.
void remove_temporaries_and_reraise(int signal_number) {
    for (Temporary& t : temporaries)
        if (t.state.load(std::memory_order_acquire) == 2) ::unlink(t.path);
    for (int k = 0; k < cleanup_signal_count; ++k)
        if (cleanup_signals[k] == signal_number && handler_installed[k]) {
            ::sigaction(signal_number, &previous_actions[k], nullptr);
            handler_installed[k] = false;
        }
    ::raise(signal_number);
}

/// What an open OutputFile does on signal `k` of cleanup_signals.
void (*handler_of(int k))(int) { return cleanup_signals[k] == SIGXFSZ ? SIG_IGN : remove_temporaries_and_reraise; }

void install_cleanup_handlers() {
    struct sigaction ours {};
    ours.sa_flags = SA_RESTART;
    sigemptyset(&ours.sa_mask);
    for (int signal_number : cleanup_signals) sigaddset(&ours.sa_mask, signal_number);
    for (int k = 0; k < cleanup_signal_count; ++k) {
        struct sigaction current {};
        if (::sigaction(cleanup_signals[k], nullptr, &current) != 0 || current.sa_handler == SIG_IGN) continue;
        ours.sa_handler = handler_of(k);
        handler_installed[k] = ::sigaction(cleanup_signals[k], &ours, &previous_actions[k]) == 0;
    }
}

void restore_signal_handlers() {
    for (int k = 0; k < cleanup_signal_count; ++k) {
        if (!handler_installed[k]) continue;
        struct sigaction current {};
        // Only our own handler is taken back: one the program installed since stays.
        if (::sigaction(cleanup_signals[k], nullptr, &current) == 0 && current.sa_handler == handler_of(k))
            ::sigaction(cleanup_signals[k], &previous_actions[k], nullptr);
        handler_installed[k] = false;
    }
}

/// The signal handlers of cleanup_signals, installed while at least one OutputFile is open.
struct HandlersHeld {
    HandlersHeld() {
        const std::lock_guard<std::mutex> lock(temporaries_mutex);
        if (open_files++ == 0) install_cleanup_handlers();
    }
    ~HandlersHeld() {
        const std::lock_guard<std::mutex> lock(temporaries_mutex);
        if (--open_files == 0) restore_signal_handlers();
    }
    HandlersHeld(const HandlersHeld&) = delete;
    HandlersHeld& operator=(const HandlersHeld&) = delete;
};

/// A slot of the table for `path` (-1 if the table is full or the path too long: the file is
/// still written safely, but a signal would leave its temporary behind).
int register_temporary(const std::string& path) {
    const std::lock_guard<std::mutex> lock(temporaries_mutex);
    if (path.size() >= PATH_MAX) return -1;
    for (int slot = 0; slot < max_temporaries; ++slot) {
        int expected = 0;
        if (!temporaries[slot].state.compare_exchange_strong(expected, 1)) continue;
        std::memcpy(temporaries[slot].path, path.c_str(), path.size() + 1);
        temporaries[slot].state.store(2, std::memory_order_release);
        return slot;
    }
    return -1;
}

void unregister_temporary(int slot) {
    if (slot < 0) return;
    const std::lock_guard<std::mutex> lock(temporaries_mutex);
    temporaries[slot].state.store(0, std::memory_order_release);
}

/// An output stream buffer on a file descriptor that keeps the first write error (errno).
class DescriptorBuffer : public std::streambuf {
public:
    DescriptorBuffer() : buffer_(std::size_t(1) << 20) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }
    void attach(int fd) { fd_ = fd; }
    int error() const { return error_; }

protected:
    int_type overflow(int_type c) override {
        if (!drain()) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return drain() ? 0 : -1; }

private:
    bool drain() {
        if (error_) return false;
        const char* p = pbase();
        std::size_t left = static_cast<std::size_t>(pptr() - pbase());
        while (left > 0) {
            const ssize_t written = ::write(fd_, p, left);
            if (written < 0 && errno == EINTR) continue;
            if (written <= 0) {
                error_ = written < 0 ? errno : EIO;
                return false;
            }
            p += written;
            left -= static_cast<std::size_t>(written);
        }
        setp(buffer_.data(), buffer_.data() + buffer_.size());
        return true;
    }

    std::vector<char> buffer_;
    int fd_ = -1;
    int error_ = 0;
};

/// The descriptor that /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N names, or -1.
int descriptor_alias(const std::filesystem::path& path) {
    const std::string text = path.lexically_normal().string();
    if (text == "/dev/stdout") return 1;
    if (text == "/dev/stderr") return 2;
    for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        const std::string p = prefix;
        if (text.size() > p.size() && text.compare(0, p.size(), p) == 0 &&
            text.find_first_not_of("0123456789", p.size()) == std::string::npos && text.size() - p.size() < 6)
            return std::stoi(text.substr(p.size()));
    }
    return -1;
}

std::string reason(int error) { return std::generic_category().message(error); }

/// The name of a temporary for the file `filename`: ".NAME.adimg-PID-K.tmp", NAME cut short (at
/// a UTF-8 character boundary) where the whole would exceed `longest` bytes, the longest file
/// name of the directory: a target named near that limit can still be written.
std::string temporary_name(const std::string& filename, unsigned k, std::size_t longest) {
    const std::string suffix = ".adimg-" + std::to_string(::getpid()) + "-" + std::to_string(k) + ".tmp";
    std::size_t keep = filename.size();
    if (1 + keep + suffix.size() > longest) {
        keep = longest > 1 + suffix.size() ? longest - 1 - suffix.size() : 0;
        while (keep > 0 && (static_cast<unsigned char>(filename[keep]) & 0xc0) == 0x80) --keep;  // a continuation byte
    }
    std::string name(1, '.');  // not "." + ...: GCC 12 warns of a memcpy overlap there (-Wrestrict)
    return name.append(filename, 0, keep) + suffix;
}

std::atomic<unsigned> temporaries_made{0};

}  // namespace

std::string write_failure(int error) {
    struct rlimit limit {};
    if (error != EFBIG || ::getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return reason(error);
    return reason(error) + " (the file size limit of this process is " + std::to_string(limit.rlim_cur) +
           " bytes; raise it with ulimit -f)";
}

std::filesystem::path link_destination(const std::filesystem::path& target) {
    std::filesystem::path file = target;
    for (int hops = 0; hops <= 40; ++hops) {
        std::error_code ec;
        if (!std::filesystem::is_symlink(std::filesystem::symlink_status(file, ec))) return file;
        const std::filesystem::path next = std::filesystem::read_symlink(file, ec);
        if (ec) return file;
        file = next.is_absolute() ? next : file.parent_path() / next;
    }
    return {};
}

struct OutputFile::State {
    HandlersHeld handlers;              ///< first: released after everything else
    std::filesystem::path target;       ///< as given
    std::filesystem::path destination;  ///< the file that the rename replaces (a link resolved)
    std::filesystem::path temporary;    ///< empty when written in place
    bool existed = false;
    int fd = -1;
    int slot = -1;
    bool committed = false;
    DescriptorBuffer buffer;
    std::ostream stream{&buffer};

    [[noreturn]] void fail(const std::string& what) {
        discard();
        throw write_error("cannot write '" + target.string() + "': " + what +
                          (temporary.empty() ? ""
                           : existed        ? "; '" + target.string() + "' was left as it was"
                                            : "; no file was written"));
    }
    void discard() {
        if (fd >= 0) ::close(fd);
        fd = -1;
        if (!temporary.empty()) ::unlink(temporary.c_str());
        unregister_temporary(slot);
        slot = -1;
    }
};

OutputFile::OutputFile(const std::filesystem::path& target) : state_(std::make_unique<State>()) {
    State& s = *state_;
    s.target = s.destination = target;
    s.stream.precision(17);
    if (target.empty()) throw write_error("cannot write a file with an empty name");
    if (const int alias = descriptor_alias(target); alias >= 0) {
        std::cout.flush();  // what the program printed before comes first
        std::fflush(nullptr);
        s.fd = ::fcntl(alias, F_DUPFD_CLOEXEC, 0);
        if (s.fd < 0) s.fail(reason(errno));
        s.buffer.attach(s.fd);
        return;
    }
    struct stat status {};
    s.existed = ::stat(target.c_str(), &status) == 0;
    if (s.existed && !S_ISREG(status.st_mode)) {
        if (S_ISDIR(status.st_mode)) s.fail("it is a directory");
        s.fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
        if (s.fd < 0) s.fail(reason(errno));
        s.buffer.attach(s.fd);
        return;
    }
    s.destination = link_destination(target);
    if (s.destination.empty()) s.fail(reason(ELOOP) + "; check where its symbolic links point (they form a loop)");
    const std::filesystem::path directory =
        s.destination.has_parent_path() ? s.destination.parent_path() : std::filesystem::path(".");
    const long name_max = ::pathconf(directory.c_str(), _PC_NAME_MAX);
    const std::size_t longest = name_max > 0 ? static_cast<std::size_t>(name_max) : NAME_MAX;
    for (int attempt = 0; s.fd < 0; ++attempt) {
        s.temporary = directory / temporary_name(s.destination.filename().string(), temporaries_made++, longest);
        s.slot = register_temporary(s.temporary.string());  // before the file exists: a signal finds it
        s.fd = ::open(s.temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (s.fd >= 0) break;
        const int error = errno;
        unregister_temporary(s.slot);
        s.slot = -1;
        if (error != EEXIST || attempt == 100) {
            s.temporary.clear();
            s.fail("cannot create a file in '" + directory.string() + "' (" + reason(error) +
                   "); the file is written beside its target and renamed into place");
        }
    }
    if (s.existed) (void)::fchmod(s.fd, status.st_mode & 07777);
    s.buffer.attach(s.fd);
}

OutputFile::~OutputFile() {
    if (state_ && !state_->committed) state_->discard();
}

std::ostream& OutputFile::stream() { return state_->stream; }
const std::filesystem::path& OutputFile::target() const { return state_->target; }

void OutputFile::commit() {
    State& s = *state_;
    if (s.committed || s.fd < 0) throw std::logic_error("OutputFile::commit called twice");
    s.stream.flush();
    int error = s.buffer.error();
    if (!error && !s.stream) error = EIO;
    // Durable before it replaces the target: a crash after the rename shows the whole file.
    if (!error && !s.temporary.empty() && ::fsync(s.fd) != 0) error = errno;
    const int fd = s.fd;
    s.fd = -1;
    if (::close(fd) != 0 && errno != EINTR && !error) error = errno;
    if (error) s.fail(write_failure(error));
    if (!s.temporary.empty()) {
        if (::rename(s.temporary.c_str(), s.destination.c_str()) != 0) s.fail(reason(errno));
        s.temporary.clear();
        unregister_temporary(s.slot);
        s.slot = -1;
        // The rename itself is durable once the directory is.
        const std::filesystem::path directory =
            s.destination.has_parent_path() ? s.destination.parent_path() : std::filesystem::path(".");
        const int dir_fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dir_fd >= 0) {
            (void)::fsync(dir_fd);
            ::close(dir_fd);
        }
    }
    s.committed = true;
}

void write_text_file(const std::filesystem::path& path, const std::string& text) {
    OutputFile file(path);
    file.stream() << text;
    file.commit();
}

}  // namespace adimg
