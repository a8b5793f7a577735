// A socket class enables options through a member template (SetOption<T>(level, name, value)),
// and reads messages through a member (Recv(msghdr *)). The datagram server binds first and
// enables SO_PASSCRED after: datagrams queued in between arrive with pid=0 uid=65534. The option
// is the template's, instantiated for this call; no fix-it, since it is the call that would move.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <string.h>
#include <optional>

class Socket {
public:
  explicit Socket(int fd) : fd_(fd) {}
  template <typename T>
  bool SetOption(int level, int name, T value) { return setsockopt(fd_, level, name, &value, sizeof value) == 0; }
  ssize_t Recv(msghdr *msg) { return recvmsg(fd_, msg, 0); }
  int fd() const { return fd_; }
private:
  int fd_;
};

static std::optional<ucred> ReadCreds(Socket &s) {
  char buf[16];
  iovec iov = {buf, sizeof buf};
  char control[CMSG_SPACE(sizeof(ucred))];
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (s.Recv(&msg) <= 0) return std::nullopt;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS) return std::nullopt;
  ucred cred;
  memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred;
}

int main() {
  Socket server(socket(AF_UNIX, SOCK_DGRAM, 0));
  sockaddr_un a = {};
  a.sun_family = AF_UNIX;
  strcpy(a.sun_path, "/run/r.sock");
  bind(server.fd(), (sockaddr *)&a, sizeof a); // EXPECT-NOTE: bind() here
  server.SetOption(SOL_SOCKET, SO_PASSCRED, 1); // EXPECT: afunix-passcred-too-late:3 EXPECT-MESSAGE: datagram socket 'fd_' after bind() EXPECT-NOTE: no fix-it: it is enabled by a call of a wrapper that takes the option
  for (;;) {
    auto cred = ReadCreds(server);
    if (cred && cred->uid != 0) continue;
  }
}
