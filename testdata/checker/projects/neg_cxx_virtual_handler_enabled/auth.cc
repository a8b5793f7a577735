#include "handler.h"

#include <sys/socket.h>

class AuthHandler : public Handler {
public:
  void on_client(int fd) override {
    char byte;
    char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov{&byte, 1};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (::recvmsg(fd, &msg, 0) <= 0)
      return;
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    allowed_ = c && c->cmsg_type == SCM_CREDENTIALS;
  }

private:
  bool allowed_ = false;
};

void run() {
  AuthHandler handler;
  serve(handler);
}
