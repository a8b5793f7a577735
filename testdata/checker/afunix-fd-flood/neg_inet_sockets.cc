// C++: TCP sockets passed in a loop are not AF_UNIX sockets: the unix GC never waits on them.
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

static void sendFd(int over, int fd) {
  char byte = 0;
  alignas(cmsghdr) char buf[CMSG_SPACE(sizeof(int))];
  iovec iov{};
  iov.iov_base = &byte;
  iov.iov_len = 1;
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = buf;
  msg.msg_controllen = sizeof buf;
  cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  sendmsg(over, &msg, 0);
}

void forwardTcp(int worker) {
  int listener = socket(AF_INET6, SOCK_STREAM, 0);
  listen(listener, 64);
  for (;;) {
    int client = accept(listener, nullptr, nullptr);
    sendFd(worker, client);
    close(client);
  }
}
