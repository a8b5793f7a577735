// C++: a client class whose call() sends the request and only then enables SO_PASSCRED to read
// the server's credentials with the answer: an answer queued before the option arrives with
// pid=0 uid=65534. The order is decided in call(), across the member functions.
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

class RootClient {
public:
  explicit RootClient(const sockaddr_un &addr) : fd_(::socket(AF_UNIX, SOCK_SEQPACKET, 0)) { // EXPECT-NOTE: socket created here
    ::connect(fd_, reinterpret_cast<const sockaddr *>(&addr), sizeof addr); // EXPECT-NOTE: connect() here
  }

  bool call(const char *request) {
    send(request); // EXPECT-NOTE: the request is sent in this call
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: on client socket 'fd_' only after it sent a request
    return answeredByRoot();
  }

private:
  void send(const char *request) { ::send(fd_, request, strlen(request), 0); } // EXPECT-NOTE: the request is sent here, before SO_PASSCRED is enabled

  bool answeredByRoot() {
    char buf[64];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov{buf, sizeof buf};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (::recvmsg(fd_, &msg, 0) <= 0) // EXPECT-NOTE: the answer's credentials are read here
      return false;
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    return c && c->cmsg_type == SCM_CREDENTIALS && reinterpret_cast<ucred *>(CMSG_DATA(c))->uid == 0;
  }

  int fd_;
};

bool ask(const sockaddr_un &addr) {
  RootClient client(addr);
  return client.call("status");
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: ::connect(fd_, reinterpret_cast<const sockaddr *>(&addr), sizeof addr); // EXPECT-NOTE: connect() here
