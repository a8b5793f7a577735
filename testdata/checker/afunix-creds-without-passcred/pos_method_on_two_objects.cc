// A connection class whose method reads the peer's credentials on its own fd, used on two
// objects: the trusted one enabled SO_PASSCRED, the untrusted one never does. The read itself
// sees both sockets; the untrusted object's call is the one that never gets credentials.
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
    if (recvmsg(fd_, &msg, 0) < 0) // EXPECT-NOTE: credentials are read here
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

int serve() {
  int a[2], b[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, a) != 0)
    return -1;
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, b) != 0) // EXPECT-NOTE: socket created here
    return -1;
  Connection trusted(a[0]);
  if (!trusted.EnableCredentials())
    return -1;
  Connection untrusted(b[0]);
  int first = trusted.PeerUid();
  int second = untrusted.PeerUid(); // EXPECT: afunix-creds-without-passcred
  return first == 0 && second == 0;
}

// The fix-it, as --fix applies it: the untrusted object's socket, right after socketpair().
// EXPECT-FIXED: return -1;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(b[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
