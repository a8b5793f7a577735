// Two objects of one server class whose methods open, listen on and enable SO_PASSCRED on the
// object's own socket. The control server never enables it (nothing reads its peers'
// credentials); the events server enables it before it listens. Read as one place for both
// objects' sockets, the events server's call after the control server's Listen() would look late
// on the control socket.
// Here the option is set by a private helper that EnableCredentials() calls once: made per call
// inside each object's copy too.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

class UnixServer {
public:
  explicit UnixServer(const char *path) : path_(path) {}
  bool Open() {
    sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, path_, sizeof addr.sun_path - 1);
    fd_ = socket(AF_UNIX, SOCK_STREAM, 0);
    return fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0;
  }
  bool Listen() { return listen(fd_, 16) == 0; }
  bool EnableCredentials() { return SetFlag(SO_PASSCRED, true); }

  // The pid the kernel attached to the next message of a connection accepted here, -1 if none.
  pid_t NextSender() {
    int conn = accept(fd_, nullptr, nullptr);
    char data[256];
    char space[CMSG_SPACE(sizeof(ucred))];
    iovec iov = {data, sizeof data};
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = space;
    msg.msg_controllen = sizeof space;
    if (conn < 0 || recvmsg(conn, &msg, 0) < 0)
      return -1;
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS)
      return -1;
    ucred cred;
    memcpy(&cred, CMSG_DATA(c), sizeof cred);
    return cred.pid;
  }

private:
  bool SetFlag(int option, bool on) {
    int value = on;
    return setsockopt(fd_, SOL_SOCKET, option, &value, sizeof value) == 0;
  }

  const char *path_;
  int fd_ = -1;
};

int main() {
  UnixServer control("/run/broker/control");
  if (!control.Open() || !control.Listen())
    return 1;
  UnixServer events("/run/broker/events");
  if (!events.Open() || !events.EnableCredentials() || !events.Listen())
    return 1;
  return events.NextSender() < 0;
}
