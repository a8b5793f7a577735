// pos_member_initializer_listens.cc with the option where it is in time: the member initialiser
// only makes the socket, and the constructor's body enables SO_PASSCRED before it binds and
// listens.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

static bool from_root(int fd) {
  char data[64];
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
  iovec iov{data, sizeof data};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(fd, &msg, 0) <= 0)
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
  explicit Server(const char *path) : listener_(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    int on = 1;
    setsockopt(listener_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (bind(listener_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0)
      listen(listener_, 16);
  }
  bool admit() {
    int peer = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    bool ok = from_root(peer);
    close(peer);
    return ok;
  }

private:
  int listener_;
};

bool serve(const char *path) {
  Server server(path);
  return server.admit();
}
