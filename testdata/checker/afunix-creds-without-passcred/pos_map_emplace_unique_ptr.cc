// A broker keeps its clients in std::map<int, std::unique_ptr<Client>>, added with
// emplace(fd, std::make_unique<Client>(fd)) and read for credentials in a range-for. The element's
// value is a copy of the unique_ptr the call is given (not a class of the program to construct).
// The listener never enables SO_PASSCRED.
#include <map>
#include <memory>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <string.h>

struct Client {
  explicit Client(int fd) : fd(fd) {}
  int fd;
};

static bool FromRoot(int fd) {
  char buf[16];
  char control[CMSG_SPACE(sizeof(ucred))];
  iovec iov = {buf, sizeof buf};
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(fd, &msg, 0) <= 0) // EXPECT-NOTE: credentials are read here
    return false;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
    ucred cred;
    memcpy(&cred, CMSG_DATA(c), sizeof cred);
    return cred.uid == 0;
  }
  return true;
}

class Broker {
public:
  bool Listen(const char *path) {
    listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: listening socket created here
    sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    return bind(listener_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0 && listen(listener_, 8) == 0;
  }
  void AcceptOne() {
    int fd = accept(listener_, nullptr, nullptr); // EXPECT-NOTE: accept() here
    clients_.emplace(fd, std::make_unique<Client>(fd));
  }
  int Admins() {
    int admins = 0;
    for (auto &[fd, client] : clients_)
      admins += FromRoot(client->fd); // EXPECT: afunix-creds-without-passcred:17
    return admins;
  }

private:
  int listener_ = -1;
  std::map<int, std::unique_ptr<Client>> clients_;
};

int main() {
  Broker broker;
  if (!broker.Listen("/run/example.sock"))
    return 1;
  broker.AcceptOne();
  return broker.Admins();
}

// The fix-it, as --fix applies it: the listener, before bind() and listen().
// EXPECT-FIXED: strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listener_, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
