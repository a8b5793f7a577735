// Accepted connections live in std::shared_ptr, copied into the handler that reads their
// credentials. libstdc++ declares shared_ptr's operator-> and get() in its bases
// (__shared_ptr_access, __shared_ptr); the copy still holds the same connection. The listener
// never enables SO_PASSCRED.
#include <memory>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <string.h>

struct Connection {
  explicit Connection(int fd) : fd(fd) {}
  int fd;
};

static bool FromRoot(std::shared_ptr<Connection> conn) {
  char buf[16];
  char control[CMSG_SPACE(sizeof(ucred))];
  iovec iov = {buf, sizeof buf};
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(conn->fd, &msg, 0) <= 0) // EXPECT: afunix-creds-without-passcred:7
    return false;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) { // EXPECT-NOTE: the credentials are looked for here
    ucred cred;
    memcpy(&cred, CMSG_DATA(c), sizeof cred);
    return cred.uid == 0;
  }
  return true;
}

int main() {
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: listening socket created here
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, "/run/example.sock", sizeof addr.sun_path - 1);
  if (bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || listen(listener, 8) != 0)
    return 1;
  for (;;) {
    auto conn = std::make_shared<Connection>(accept(listener, nullptr, nullptr)); // EXPECT-NOTE: accept() here
    std::shared_ptr<Connection> handed = conn;
    if (FromRoot(handed))
      return 0;
  }
}

// The fix-it, as --fix applies it: the listener, before bind() and listen().
// EXPECT-FIXED: strncpy(addr.sun_path, "/run/example.sock", sizeof addr.sun_path - 1);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
