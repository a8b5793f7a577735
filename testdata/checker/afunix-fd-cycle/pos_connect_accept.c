// A connection made and accepted in one function, then the accepted end sent over the
// connecting end: the socket is in flight on its own peer.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int send_fd(int over, int fd) {
  char byte = 0;
  char buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0; // EXPECT-NOTE: sent here
}

int connected_cycle(const struct sockaddr_un *addr) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  bind(listener, (const struct sockaddr *)addr, sizeof *addr);
  listen(listener, 1);
  int client = socket(AF_UNIX, SOCK_STREAM, 0);
  connect(client, (const struct sockaddr *)addr, sizeof *addr);
  int server = accept(listener, 0, 0); // EXPECT-NOTE: socket created here
  int rc = send_fd(client, server); // EXPECT: afunix-fd-cycle // EXPECT-MESSAGE: connect
  close(server);
  close(client);
  close(listener);
  return rc;
}
