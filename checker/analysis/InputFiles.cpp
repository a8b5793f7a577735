#include "InputFiles.h"

#include "llvm/Support/FileSystem.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace afunix::analysis {

namespace {

const char *kindOf(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "of another kind";
}

std::string sizeText(std::uint64_t bytes) {
  if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB";
  return std::to_string(bytes >> 20) + " MiB";
}

// The open descriptor of the regular file `path`, or -1 and `error`.
int openRegular(const std::string &path, std::uint64_t limit, std::uint64_t &size,
                std::string &error) {
  int fd;
  do
    fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    error = path + ": " + std::strerror(errno);
    return -1;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    error = path + ": " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    error = path + ": not a regular file (" + kindOf(st.st_mode) + ")";
    ::close(fd);
    return -1;
  }
  if (static_cast<std::uint64_t>(st.st_size) > limit) {
    error = path + ": larger than " + sizeText(limit) + " (" + std::to_string(st.st_size) +
            " bytes); not read";
    ::close(fd);
    return -1;
  }
  size = static_cast<std::uint64_t>(st.st_size);
  return fd;
}

} // namespace

std::unique_ptr<llvm::MemoryBuffer> readInputFile(const std::string &path, std::uint64_t limit,
                                                  std::string &error, bool mayMap) {
  std::uint64_t size = 0;
  int fd = openRegular(path, limit, size, error);
  if (fd < 0)
    return nullptr;
  // The size fstat gave: a file that grows meanwhile is read as it was (a reader never follows a
  // writer past the limit). IsVolatile: copied, not mapped, unless the caller's files are never
  // rewritten in place.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = llvm::MemoryBuffer::getOpenFile(
      llvm::sys::fs::convertFDToNativeFile(fd), path, size, /*RequiresNullTerminator=*/false,
      /*IsVolatile=*/!mayMap);
  ::close(fd);
  if (!buffer) {
    error = path + ": " + buffer.getError().message();
    return nullptr;
  }
  return std::move(*buffer);
}

bool readInputFile(const std::string &path, std::uint64_t limit, std::string &bytes,
                   std::string &error) {
  std::unique_ptr<llvm::MemoryBuffer> buffer = readInputFile(path, limit, error);
  if (!buffer)
    return false;
  bytes = buffer->getBuffer().str();
  return true;
}

bool isRegularFile(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::optional<llvm::json::Value> parseJson(llvm::StringRef text, std::string &error) {
  // The depth of brackets outside strings, counted the way the parser will read them; text that
  // is not JSON at all is left to the parser to describe.
  unsigned depth = 0;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) {
        unsigned line = 1 + static_cast<unsigned>(text.take_front(i).count('\n'));
        error = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels (line " +
                std::to_string(line) + ")";
        return std::nullopt;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value) {
    error = llvm::toString(value.takeError());
    return std::nullopt;
  }
  return std::move(*value);
}

} // namespace afunix::analysis
