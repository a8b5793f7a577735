// A helper sizes its message with a count parameter (systemd's pid_notify_with_fds_internal(),
// reached through sd_pid_notify_with_fds() from notify_push_fd(fd) with `&fd, 1`): the caller's
// constant decides, two calls up, and one socket per message is not a run-time number of them.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int send_fds(int channel, const int *fds, size_t n_fds) {
  char buf[CMSG_SPACE(sizeof(int) * 16)];
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

int push_one(int manager, int fd) { return send_some(manager, &fd, 1); }

int pass_listener(int manager) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(listener, 1);
  return push_one(manager, listener);
}
