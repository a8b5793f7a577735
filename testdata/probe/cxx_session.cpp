// A C++ service: a Listener accepts connections, a worker wraps each in a Session later, and the
// Session enables SO_PASSCRED in its constructor, after the client has already written to the
// accepted socket: that message arrives with pid 0 (Linux 3.2+; what a client queues before the
// accept() gets credentials anyway on 6.16+). The probe must name the member function and line of
// the read, demangled.
// PROBE-EXPECT: afunix-passcred-too-late
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define CHECK(expr)                                                                                \
  do {                                                                                             \
    if (!(expr)) {                                                                                 \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, std::strerror(errno)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace service {

class Session {
public:
  explicit Session(int fd) : fd_(fd) {
    int one = 1;
    CHECK(setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == 0);
  }
  ~Session() { close(fd_); }
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  // Returns the sender's pid, 0 when the kernel attached no credentials, -1 when none came.
  long readRequest(std::string &request) {
    char data[64];
    iovec iov{data, sizeof data};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n = recvmsg(fd_, &msg, 0); // PROBE-AT: afunix-passcred-too-late
    CHECK(n >= 0);
    request.assign(data, static_cast<std::size_t>(n));
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
        ucred cred;
        std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
        return cred.pid;
      }
    return -1;
  }

private:
  int fd_;
};

class Listener {
public:
  Listener() : fd_(socket(AF_UNIX, SOCK_STREAM, 0)) {
    CHECK(fd_ >= 0);
    sockaddr_un addr = address();
    CHECK(bind(fd_, reinterpret_cast<sockaddr *>(&addr), length()) == 0);
    CHECK(listen(fd_, 4) == 0);
  }
  ~Listener() { close(fd_); }
  int next() {
    int fd = accept(fd_, nullptr, nullptr); // PROBE-SOCKET: afunix-passcred-too-late stream accepted
    CHECK(fd >= 0);
    return fd;
  }
  int connectClient() const {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(fd >= 0);
    sockaddr_un addr = address();
    CHECK(connect(fd, reinterpret_cast<sockaddr *>(&addr), length()) == 0);
    return fd;
  }

private:
  int fd_;
  std::string name_ = "afunix-probe-cxx-" + std::to_string(getpid());
  sockaddr_un address() const {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path + 1, name_.data(), name_.size());
    return addr;
  }
  socklen_t length() const { return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name_.size()); }
};

} // namespace service

int main() {
  service::Listener listener;
  int client = listener.connectClient();
  int accepted = listener.next();
  // The client is quick: its request is queued before a worker has a Session for the connection.
  CHECK(write(client, "status", 6) == 6);
  auto session = std::make_unique<service::Session>(accepted);
  std::string request;
  long pid = session->readRequest(request);
  std::printf("request '%s', sender pid %s\n", request.c_str(),
              pid == 0 ? "0 (no credentials were attached)" : pid > 0 ? "real" : "absent");
  close(client);
  return 0;
}
