// The connection class of pos_method_on_two_objects.cc, its method called on three objects: two
// enable SO_PASSCRED, and the third holds either the first's socket or one that never has it (the
// call may get credentials: not judged).
#include <string.h>
#include <sys/socket.h>

class Connection {
public:
  explicit Connection(int fd) : fd_(fd) {}
  bool EnableCredentials() {
    int on = 1;
    return setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == 0;
  }
  // The peer's uid, or -1 when the message came without credentials.
  int PeerUid() {
    char data[64];
    char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov = {data, sizeof data};
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(fd_, &msg, 0) < 0)
      return -1;
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_CREDENTIALS)
      return -1;
    ucred creds;
    memcpy(&creds, CMSG_DATA(c), sizeof creds);
    return static_cast<int>(creds.uid);
  }

private:
  int fd_;
};

int serve(bool pick) {
  int a[2], b[2], c[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, a) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, b) != 0 ||
      socketpair(AF_UNIX, SOCK_STREAM, 0, c) != 0)
    return -1;
  Connection first(a[0]), second(b[0]), either(pick ? a[0] : c[0]);
  if (!first.EnableCredentials() || !second.EnableCredentials())
    return -1;
  return first.PeerUid() == 0 && second.PeerUid() == 0 && either.PeerUid() == 0;
}
