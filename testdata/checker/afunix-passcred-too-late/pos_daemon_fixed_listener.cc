// C++: pos_daemon_fixed_listener.c as a class. The listener member gets SO_PASSCRED in start(),
// right after listen() and before next() accepts; each connection inherits it, and the option left
// in next() is redundant. Only the 6.16 window between listen() and the option remains, a note.
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

class Control {
public:
  Control() : listen_fd_(::socket(AF_UNIX, SOCK_SEQPACKET, 0)) {} // EXPECT-NOTE: socket created here

  bool start(const sockaddr_un &addr) {
    if (::bind(listen_fd_, reinterpret_cast<const sockaddr *>(&addr), sizeof addr) < 0)
      return false;
    if (::listen(listen_fd_, 16) < 0) // EXPECT-NOTE: listen() here
      return false;
    int one = 1;
    return ::setsockopt(listen_fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) == 0; // EXPECT: afunix-passcred-too-late EXPECT-SEVERITY: note EXPECT-MESSAGE: on listener 'listen_fd_' after listen(), before any accept()
  }

  int next() {
    int conn = ::accept(listen_fd_, nullptr, nullptr);
    int one = 1;
    ::setsockopt(conn, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    return conn;
  }

  int peer_uid(int conn) {
    char buf[64];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov{buf, sizeof buf};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (::recvmsg(conn, &msg, 0) < 0)
      return -1;
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_CREDENTIALS)
      return -1;
    return static_cast<int>(reinterpret_cast<ucred *>(CMSG_DATA(c))->uid);
  }

private:
  int listen_fd_;
};

int run_control(const sockaddr_un &addr) {
  Control control;
  if (!control.start(addr))
    return -1;
  int conn = control.next();
  return control.peer_uid(conn);
}

// The fix-it (`one` is declared after listen(): the option cannot move), as --fix applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listen_fd_, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: if (::listen(listen_fd_, 16) < 0) // EXPECT-NOTE: listen() here
