// OPTIONS: --config=testdata/checker/afunix-fd-flood/producers.yaml
// open_channel() is defined in another TU; the project configuration names it a producer of
// AF_UNIX sockets, so what it returns counts as a socket.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int open_channel(const char *name);

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
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}

void publish(int registry, const char *const *names, int n) {
  for (int i = 0; i < n; i++) {
    int ch = open_channel(names[i]); // EXPECT-NOTE: socket created here
    send_fd(registry, ch); // EXPECT: afunix-fd-flood
    close(ch);
  }
}
