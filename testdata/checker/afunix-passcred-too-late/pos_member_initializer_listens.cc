// C++: the server's listener member is made by a helper that binds and listens, called in the
// constructor's member initialiser; the constructor's body enables SO_PASSCRED after that, and a
// client that connects in between gets no credentials (6.16 copies the flag at connect()). Each
// connection's first message is checked for the sender's credentials.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

static int listen_on(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || listen(fd, 16) != 0) { // EXPECT-NOTE: listen() here
    close(fd);
    return -1;
  }
  return fd;
}

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
  explicit Server(const char *path) : listener_(listen_on(path)) { // EXPECT-NOTE: the socket listens from this call
    int on = 1;
    setsockopt(listener_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: SO_PASSCRED is enabled on listener 'listener_' after listen(), before any accept()
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

// The fix-it enables it in the helper, before it binds and listens.
// EXPECT-FIXED: std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
