#include "connection.h"

#include <sys/socket.h>

Connection::Connection(UniqueFd fd) : fd_(std::move(fd)) {}

bool Connection::authenticate() {
  char byte;
  char control[CMSG_SPACE(sizeof(struct ucred))];
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (::recvmsg(fd_.get(), &msg, 0) <= 0) // EXPECT: afunix-creds-without-passcred:7
    return false;
  for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_type == SCM_CREDENTIALS)
      uid_ = reinterpret_cast<ucred *>(CMSG_DATA(c))->uid;
  return uid_ == 0;
}
