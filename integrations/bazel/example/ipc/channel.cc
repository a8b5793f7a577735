#include "ipc/channel.h"

#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

namespace ipc {

bool Channel::Pair(Channel &receiver, Channel &sender) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, fds) != 0)
    return false;
  receiver.fd_ = fds[0];
  sender.fd_ = fds[1];
  return receiver.PassCredentials();
}

Channel::~Channel() {
  if (fd_ >= 0)
    close(fd_);
}

bool Channel::PassCredentials() {
  int on = 1;
  return setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == 0;
}

bool Channel::Send(const char *data, size_t size) {
  return send(fd_, data, size, 0) == static_cast<ssize_t>(size);
}

pid_t Channel::ReceivePeer(char *data, size_t size) {
  union {
    char buffer[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } control;
  struct iovec iov = {data, size};
  struct msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.buffer;
  msg.msg_controllen = sizeof control.buffer;
  if (recvmsg(fd_, &msg, 0) < 0)
    return -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      struct ucred cred;
      memcpy(&cred, CMSG_DATA(c), sizeof cred);
      return cred.pid;
    }
  return -1;
}

}  // namespace ipc
