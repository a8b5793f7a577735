// A C++ server posts each connection to a work queue (a library: only its declaration is seen) as
// a member function bound with std::bind to `this`, a placeholder the queue fills with the job's
// status, and the accepted fd. The bound function reads the client's credentials; the listener
// never gets SO_PASSCRED, so none arrive. The fd is bound after the placeholder: each value std::bind
// gives reaches its own parameter, wherever the placeholders are.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <functional>

namespace work {
void post(std::function<void(int status)> job);
} // namespace work

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
  bool Run(const char *path) {
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: listening socket created here
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || listen(listener, 16) != 0)
      return false;
    for (;;) {
      int peer = accept(listener, nullptr, nullptr); // EXPECT-NOTE: accept() here
      if (peer >= 0)
        work::post(std::bind(&Server::Handle, this, std::placeholders::_1, peer));
    }
  }

private:
  void Handle(int status, int peer) {
    if (status >= 0 && !from_root(peer)) // EXPECT: afunix-creds-without-passcred
      close(peer);
  }
};

// The fix-it enables it on the listener before it binds and listens.
// EXPECT-FIXED: std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
