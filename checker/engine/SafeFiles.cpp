#include "SafeFiles.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA1.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace afunix::check {

namespace {

std::string errnoText(int err) { return std::strerror(err); }

std::string kindOf(mode_t mode) {
  if (S_ISLNK(mode))
    return "a symbolic link";
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "a device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

bool writeAll(int fd, llvm::StringRef bytes, off_t at, int &err) {
  while (!bytes.empty()) {
    ssize_t n = pwrite(fd, bytes.data(), bytes.size(), at);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      err = errno;
      return false;
    }
    bytes = bytes.drop_front(static_cast<size_t>(n));
    at += n;
  }
  return true;
}

bool readAll(int fd, std::string &out, int &err) {
  out.clear();
  char buffer[1 << 16];
  for (off_t at = 0;;) {
    ssize_t n = pread(fd, buffer, sizeof buffer, at);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      err = errno;
      return false;
    }
    if (n == 0)
      return true;
    out.append(buffer, static_cast<size_t>(n));
    at += n;
  }
}

} // namespace

std::string realPathOf(const std::string &path) {
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(path, real))
    return path;
  return std::string(real.str());
}

bool checkOutputPath(const std::string &path, const std::string &what, std::string &error) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) {
      llvm::SmallString<256> dir(path);
      llvm::sys::path::remove_filename(dir);
      if (dir.empty())
        dir = ".";
      if (!llvm::sys::fs::is_directory(dir)) {
        error = "cannot write " + what + " '" + path + "': its directory does not exist";
        return false;
      }
      return true;
    }
    error = "cannot write " + what + " '" + path + "': " + errnoText(errno);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "refusing to write " + what + " '" + path + "': it is " + kindOf(st.st_mode) +
            ", not a regular file (give the path of a regular file or of a new one)";
    return false;
  }
  return true;
}

bool writeOwnFileAtomically(const std::string &path, llvm::StringRef contents, std::string &error) {
  llvm::SmallString<256> temporary;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(path + ".%%%%%%.tmp", fd, temporary)) {
    error = path + ": " + ec.message();
    return false;
  }
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << contents;
    out.flush();
    if (out.has_error()) {
      error = path + ": " + out.error().message();
      out.clear_error();
      llvm::sys::fs::remove(temporary);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path)) {
    error = path + ": " + ec.message();
    llvm::sys::fs::remove(temporary);
    return false;
  }
  return true;
}

bool writeFileReplacing(const std::string &path, llvm::StringRef contents, const std::string &what,
                        std::string &error) {
  if (!checkOutputPath(path, what, error))
    return false;
  struct stat before;
  bool existed = lstat(path.c_str(), &before) == 0;

  llvm::SmallString<256> model(path);
  model += ".tmp-%%%%%%";
  llvm::SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp, llvm::sys::fs::OF_None,
                                                           0600)) {
    error = "cannot write " + what + " '" + path + "': " + ec.message();
    return false;
  }
  auto fail = [&](const std::string &message) {
    error = "cannot write " + what + " '" + path + "': " + message;
    close(fd);
    llvm::sys::fs::remove(temp);
    return false;
  };
  int err = 0;
  if (!writeAll(fd, contents, 0, err))
    return fail(errnoText(err));
  if (fsync(fd) != 0 && errno != EINVAL)
    return fail(errnoText(errno));
  mode_t mode = 0666;
  if (existed) {
    mode = before.st_mode & 07777;
    if (geteuid() == 0 && fchown(fd, before.st_uid, before.st_gid) != 0)
      return fail("cannot keep the owner of the replaced file: " + errnoText(errno));
  } else {
    mode_t mask = umask(0);
    umask(mask);
    mode &= ~mask;
  }
  if (fchmod(fd, mode) != 0)
    return fail(errnoText(errno));
  // The path may have changed since the first look (another process, a planted link): rename
  // only over what was checked.
  struct stat now;
  bool existsNow = lstat(path.c_str(), &now) == 0;
  if (existsNow != existed ||
      (existsNow && (!S_ISREG(now.st_mode) || now.st_dev != before.st_dev ||
                     now.st_ino != before.st_ino)))
    return fail(std::string("it changed while being written (now ") +
                (!existsNow                ? "absent"
                 : S_ISREG(now.st_mode)    ? "another file"
                                           : kindOf(now.st_mode).c_str()) +
                "); not replaced");
  if (close(fd) != 0) {
    fd = -1;
    error = "cannot write " + what + " '" + path + "': " + errnoText(errno);
    llvm::sys::fs::remove(temp);
    return false;
  }
  if (rename(temp.c_str(), path.c_str()) != 0) {
    error = "cannot write " + what + " '" + path + "': " + errnoText(errno);
    llvm::sys::fs::remove(temp);
    return false;
  }
  return true;
}

InPlaceEdit editInPlace(const std::string &path, const std::string &expectedDigest,
                        llvm::function_ref<std::string(llvm::StringRef)> edit, std::string &error) {
  std::string real = realPathOf(path);
  int fd = open(real.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    int err = errno;
    struct stat st;
    if (lstat(real.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      error = "'" + path + "' is " + kindOf(st.st_mode) + "; not fixed";
      return InPlaceEdit::NotRegular;
    }
    if (err == EACCES || err == EROFS || err == EPERM || err == ETXTBSY) {
      error = "'" + path + "' is read-only (" + errnoText(err) + "); not fixed";
      return InPlaceEdit::ReadOnly;
    }
    error = "cannot open '" + path + "' to fix it: " + errnoText(err);
    return InPlaceEdit::Failed;
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0) {
    error = "cannot fix '" + path + "': " + errnoText(errno);
    return InPlaceEdit::Failed;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "'" + path + "' is " + kindOf(st.st_mode) + "; not fixed";
    return InPlaceEdit::NotRegular;
  }
  // Root may open any file for writing; the mode still says whether its owner meant it to change.
  if ((st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) {
    char octal[8];
    snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    error = "'" + path + "' is read-only (mode " + octal + "); not fixed";
    return InPlaceEdit::ReadOnly;
  }
  std::string old;
  int err = 0;
  if (!readAll(fd, old, err)) {
    error = "cannot read '" + path + "' to fix it: " + errnoText(err);
    return InPlaceEdit::Failed;
  }
  if (expectedDigest.empty() || contentDigest(old) != expectedDigest) {
    error = "'" + path + "' changed since it was checked; not fixed (run afunix-check again)";
    return InPlaceEdit::Changed;
  }
  std::string updated = edit(old);
  if (updated == old)
    return InPlaceEdit::Unchanged;
  // Reserve the space first: a full disk then fails before a byte of the file changed.
  if (updated.size() > old.size()) {
    int rc = posix_fallocate(fd, 0, static_cast<off_t>(updated.size()));
    if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) {
      error = "cannot fix '" + path + "': " + errnoText(rc) + " (the file was not changed)";
      return InPlaceEdit::Failed;
    }
  }
  if (!writeAll(fd, updated, 0, err) || ftruncate(fd, static_cast<off_t>(updated.size())) != 0) {
    if (!err)
      err = errno;
    // Put the old bytes back if at all possible.
    int restoreErr = 0;
    bool restored = writeAll(fd, old, 0, restoreErr) &&
                    ftruncate(fd, static_cast<off_t>(old.size())) == 0;
    error = "cannot fix '" + path + "': " + errnoText(err) +
            (restored ? " (the file was restored)" : " (the file may be damaged: restore it from version control)");
    return InPlaceEdit::Failed;
  }
  if (fsync(fd) != 0 && errno != EINVAL) {
    error = "cannot fix '" + path + "': " + errnoText(errno);
    return InPlaceEdit::Failed;
  }
  return InPlaceEdit::Written;
}

} // namespace afunix::check
