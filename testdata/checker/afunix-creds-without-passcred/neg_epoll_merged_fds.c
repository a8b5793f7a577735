// An event loop: every fd goes through epoll's data.fd, so the read sees both the accepted
// clients (SO_PASSCRED inherited from the listener) and an internal wake-up socketpair end.
// A place that merges several sockets is not evidence that the clients lack SO_PASSCRED.
#define _GNU_SOURCE
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int loop(void) {
  int ep = epoll_create1(0);
  int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  listen(lfd, 8);
  int wake[2];
  socketpair(AF_UNIX, SOCK_DGRAM, 0, wake);
  struct epoll_event ev = {.events = EPOLLIN};
  ev.data.fd = wake[0];
  epoll_ctl(ep, EPOLL_CTL_ADD, wake[0], &ev);
  ev.data.fd = accept(lfd, NULL, NULL);
  epoll_ctl(ep, EPOLL_CTL_ADD, ev.data.fd, &ev);
  struct epoll_event events[8];
  int n = epoll_wait(ep, events, 8, -1);
  for (int i = 0; i < n; ++i) {
    int fd = events[i].data.fd;
    char buf[64];
    char control[CMSG_SPACE(sizeof(struct ucred))];
    struct iovec iov = {buf, sizeof buf};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                         .msg_controllen = sizeof control};
    if (recvmsg(fd, &msg, 0) <= 0)
      continue;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (c && c->cmsg_type == SCM_CREDENTIALS)
      return 1;
  }
  return 0;
}
