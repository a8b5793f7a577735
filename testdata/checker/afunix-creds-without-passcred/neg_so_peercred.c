// Identity taken with getsockopt(SO_PEERCRED) at connect time: no SO_PASSCRED needed, and
// struct ucred comes from getsockopt, not from control data.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int peer_uid(int listener) {
  int fd = accept(listener, NULL, NULL);
  struct ucred uc;
  socklen_t len = sizeof uc;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
    return -1;
  char buf[16];
  struct iovec iov = {buf, sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
  recvmsg(fd, &msg, 0);
  return (int)uc.uid;
}

int main(void) {
  int l = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(l, 1);
  return peer_uid(l);
}
