#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common.h"

// Every command carries the sender's credentials explicitly (as lxc's clients do).
static int send_with_credentials(int fd, const char *command) {
  struct ucred cred = {.pid = getpid(), .uid = getuid(), .gid = getgid()};
  char control[CMSG_SPACE(sizeof cred)] = {0};
  struct iovec iov = {.iov_base = (void *)command, .iov_len = strlen(command)};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_CREDENTIALS;
  c->cmsg_len = CMSG_LEN(sizeof cred);
  memcpy(CMSG_DATA(c), &cred, sizeof cred);
  return sendmsg(fd, &msg, 0) < 0 ? -1 : 0; // EXPECT-NOTE: SCM_CREDENTIALS attached to each message here
}

int client_command(const char *command) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX, .sun_path = CONTROL_SOCKET};
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0)
    return -1;
  if (send_with_credentials(fd, command) < 0)
    return -1;
  char answer[4];
  return read(fd, answer, sizeof answer) == 3 && answer[0] == 'o' ? 0 : -1;
}
