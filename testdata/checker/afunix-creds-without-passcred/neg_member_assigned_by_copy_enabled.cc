// pos_member_assigned_by_copy.cc with SO_PASSCRED on the listener before listen(): the
// connections accepted through the server's member inherit it, so their credentials arrive.
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct Listener {
  int fd = -1;
  static Listener Open(const char *path) {
    Listener l;
    l.fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    sockaddr_un address = {};
    address.sun_family = AF_UNIX;
    strncpy(address.sun_path, path, sizeof address.sun_path - 1);
    bind(l.fd, reinterpret_cast<sockaddr *>(&address), sizeof address);
    int one = 1;
    setsockopt(l.fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    listen(l.fd, 8);
    return l;
  }
};

class Server {
public:
  void Start() { listener_ = Listener::Open("/run/guard.sock"); }
  bool AdmitOne() {
    int conn = accept(listener_.fd, nullptr, nullptr);
    char data[16];
    char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov = {data, sizeof data};
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(conn, &msg, 0) <= 0)
      return false;
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_CREDENTIALS)
      return false;
    ucred cred;
    memcpy(&cred, CMSG_DATA(c), sizeof cred);
    return cred.uid == 0;
  }

private:
  Listener listener_;
};

int main() {
  Server server;
  server.Start();
  return server.AdmitOne() ? 0 : 1;
}

