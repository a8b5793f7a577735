// pos_object_made_per_call.cc with SO_PASSCRED enabled on the stored end inside AddClient(): the
// option is made per call too, so nothing is reported.
#include <memory>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <string.h>

static ssize_t RecvWithCreds(int fd, void *buf, size_t len, ucred *creds) {
  iovec iov = {buf, len};
  char control[CMSG_SPACE(sizeof(ucred))];
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n = ::recvmsg(fd, &msg, 0);
  if (n < 0)
    return n;
  for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      memcpy(creds, CMSG_DATA(c), sizeof *creds);
      return n;
    }
  creds->pid = 0;
  return n;
}

struct Client {
  explicit Client(int fd) : fd(fd) {}
  bool Authenticate() {
    char buf[8];
    ucred cred;
    return RecvWithCreds(fd, buf, sizeof buf, &cred) > 0 && cred.pid != 0;
  }
  int fd;
};

class Broker {
public:
  int AddClient() {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
      return -1;
    int on = 1;
    if (setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0)
      return -1;
    client_ = std::make_unique<Client>(sv[0]);
    return sv[1];
  }
  bool Poll() { return client_ && client_->Authenticate(); }

private:
  std::unique_ptr<Client> client_;
};

int main() {
  Broker broker;
  int peer = broker.AddClient();
  if (peer < 0 || write(peer, "x", 1) != 1)
    return 1;
  return broker.Poll() ? 0 : 1;
}
