// C++: a listener made by a function returning a small socket class, kept in a server's member
// by the assignment the compiler writes (listener_ = Listener::Open(path)), accepted on in
// another member function: the connections are read for SCM_CREDENTIALS, and nothing enables
// SO_PASSCRED. The assignment copies the object field by field, as a = b of a C struct does.
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct Listener {
  int fd = -1;
  static Listener Open(const char *path) {
    Listener l;
    l.fd = socket(AF_UNIX, SOCK_SEQPACKET, 0); // EXPECT-NOTE: socket created here
    sockaddr_un address = {};
    address.sun_family = AF_UNIX;
    strncpy(address.sun_path, path, sizeof address.sun_path - 1);
    bind(l.fd, reinterpret_cast<sockaddr *>(&address), sizeof address);
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
    if (recvmsg(conn, &msg, 0) <= 0) // EXPECT: afunix-creds-without-passcred
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

// The fix-it (on the listener before listen(): its connections inherit it), as --fix applies it:
// EXPECT-FIXED: bind(l.fd, reinterpret_cast<sockaddr *>(&address), sizeof address);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(l.fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(l.fd, 8);
