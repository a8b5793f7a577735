// Helpers the kernel tests share: fd/child accounting and a pathname socket directory.
#pragma once

#include <cstdlib>
#include <gtest/gtest.h>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "afunix/kernel/Experiment.h"

namespace afunix::kernel::test {

// Asserts that the scope it guards closes every fd it opened and reaps every child.
class LeakGuard {
public:
  LeakGuard() : before_(countOpenFds()) {}
  ~LeakGuard() {
    EXPECT_EQ(countOpenFds(), before_) << "fds left open";
    EXPECT_TRUE(noChildrenLeft()) << "child processes left";
  }

private:
  int before_;
};

// A private directory for pathname sockets, removed with what is in it.
class TempDir {
public:
  TempDir() {
    char templ[] = "/tmp/afunix-kernel-test.XXXXXX";
    path_ = mkdtemp(templ) ? templ : "";
  }
  ~TempDir() {
    if (!path_.empty())
      (void)!std::system(("rm -rf '" + path_ + "'").c_str());
  }
  sockaddr_un address(const char *name, socklen_t &len) const {
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s/%s", path_.c_str(), name);
    len = sizeof a;
    return a;
  }

private:
  std::string path_;
};

} // namespace afunix::kernel::test
