// C++: pos_client_after_send.cc with SO_PASSCRED enabled after connect() but before call()
// sends the request: the server can only answer after it, so its answer is queued after the
// option and carries the server's credentials. Nothing to report.
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

class RootClient {
public:
  explicit RootClient(const sockaddr_un &addr) : fd_(::socket(AF_UNIX, SOCK_SEQPACKET, 0)) {
    ::connect(fd_, reinterpret_cast<const sockaddr *>(&addr), sizeof addr);
  }

  bool call(const char *request) {
    int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    send(request);
    return answeredByRoot();
  }

private:
  void send(const char *request) { ::send(fd_, request, strlen(request), 0); }

  bool answeredByRoot() {
    char buf[64];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov{buf, sizeof buf};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (::recvmsg(fd_, &msg, 0) <= 0)
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
