// The same helper sized by its count parameter, handed on by a wrapper whose own caller passes a
// count known only at run time: one message carries as many accepted sockets as it says.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int send_fds(int channel, const int *fds, size_t n_fds) {
  char buf[CMSG_SPACE(sizeof(int) * 253)];
  char byte = 0;
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = CMSG_SPACE(sizeof(int) * n_fds)};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
  memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * n_fds);
  return sendmsg(channel, &msg, 0) < 0 ? -1 : 0;
}

int send_some(int channel, const int *fds, size_t n) { return send_fds(channel, fds, n); }

int hand_over_backlog(int manager, size_t pending) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(listener, 1024);
  int clients[1024];
  for (size_t i = 0; i < pending && i < 1024; i++)
    clients[i] = accept(listener, NULL, NULL); // EXPECT-NOTE: socket created here
  return send_some(manager, clients, pending); // EXPECT: afunix-fd-flood
}
