#include "Sockets.h"

#include <grp.h>
#include <pwd.h>

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <vector>

namespace afunix::kernel {

ssize_t sendWithFds(int sock, const int *fds, int count, int flags) {
  char byte = 'x';
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  std::vector<char> control;
  if (count > 0) {
    control.assign(CMSG_SPACE(sizeof(int) * static_cast<std::size_t>(count)), 0);
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * static_cast<std::size_t>(count));
    std::memcpy(CMSG_DATA(c), fds, sizeof(int) * static_cast<std::size_t>(count));
  }
  ssize_t n;
  do {
    n = sendmsg(sock, &msg, flags | MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n;
}

ssize_t recvFds(int sock, void *buf, std::size_t len, std::vector<int> &fds, int flags) {
  iovec iov{buf, len};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 256)];
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  do {
    n = recvmsg(sock, &msg, flags | MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0)
    return n;
  for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        fds.push_back(fd);
      }
    }
  }
  return n;
}

ssize_t recvAndCloseFds(int sock, void *buf, std::size_t len, int flags) {
  std::vector<int> fds;
  ssize_t n = recvFds(sock, buf, len, fds, flags);
  for (int fd : fds)
    close(fd);
  return n;
}

std::string pidOfPidfd(int pidfd) {
  std::ifstream in("/proc/self/fdinfo/" + std::to_string(pidfd));
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Pid:", 0) == 0) {
      std::size_t p = line.find_first_not_of(" \t", 4);
      return p == std::string::npos ? "" : line.substr(p);
    }
  return "";
}

} // namespace afunix::kernel

namespace afunix::kernel {

unsigned long inodeOf(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 ? static_cast<unsigned long>(st.st_ino) : 0;
}

std::vector<unsigned long> listedInodes(const std::vector<unsigned long> &inodes) {
  std::vector<unsigned long> listed;
  std::ifstream in("/proc/net/unix");
  std::string line;
  std::getline(in, line); // header: Num RefCount Protocol Flags Type St Inode Path
  while (std::getline(in, line)) {
    char *end = nullptr;
    const char *p = line.c_str();
    for (int field = 0; field < 6 && p; ++field) { // skip to the 7th column, the inode
      p = std::strchr(p, ' ');
      while (p && *p == ' ')
        ++p;
    }
    if (!p)
      continue;
    unsigned long inode = std::strtoul(p, &end, 10);
    for (unsigned long wanted : inodes)
      if (wanted == inode)
        listed.push_back(inode);
  }
  return listed;
}

UnusedUser unusedUser() {
  // Above every range useradd hands out (and below (uid_t)-1, "no change"), one per process id.
  constexpr uid_t kBase = 3000000000u;
  uid_t uid = kBase + static_cast<uid_t>(getpid()) % 1000000u;
  while (getpwuid(uid) || getgrgid(uid))
    ++uid;
  return {uid, static_cast<gid_t>(uid)};
}

bool collectGarbage(const std::vector<unsigned long> &inodes, double seconds) {
  timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    {
      Pair trigger = unixPair(SOCK_DGRAM); // its release starts a GC run (unix_release_sock)
    }
    if (listedInodes(inodes).empty())
      return true;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (static_cast<double>(now.tv_sec - start.tv_sec) +
            static_cast<double>(now.tv_nsec - start.tv_nsec) / 1e9 > seconds)
      return false;
    usleep(2000);
  }
}

std::string readUntilEof(int fd) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

int waitForChild(pid_t child) {
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

} // namespace afunix::kernel
