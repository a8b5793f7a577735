// A C++ server registers its listener with an event loop library (only its header is seen) and
// a member function bound with std::bind as the handler: the loop calls it with the ready fd as
// its first argument (_1). The handler accepts and reads the client's credentials; the listener
// never gets SO_PASSCRED, so none arrive.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <functional>

namespace evl {
// Calls `on_ready(fd)` whenever `fd` is readable.
void watch(int fd, std::function<void(int)> on_ready);
} // namespace evl

static bool from_root(int fd) {
  char data[64];
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
  iovec iov{data, sizeof data};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(fd, &msg, 0) <= 0) // EXPECT-NOTE: credentials are read here
    return false;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return false;
  ucred cred;
  std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred.uid == 0;
}

class Server {
public:
  bool Start(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: listening socket created here
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || listen(fd, 16) != 0)
      return false;
    evl::watch(fd, std::bind(&Server::OnReadable, this, std::placeholders::_1));
    return true;
  }

private:
  void OnReadable(int listener) {
    int peer = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC); // EXPECT-NOTE: accept() here
    if (peer < 0)
      return;
    if (!from_root(peer)) // EXPECT: afunix-creds-without-passcred
      close(peer);
  }
};

// The fix-it enables it on the listener before it binds and listens.
// EXPECT-FIXED: std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
