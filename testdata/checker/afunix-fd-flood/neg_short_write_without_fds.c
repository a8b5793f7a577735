// A notify helper (systemd's pid_notify_with_fds_internal()) sends the caller's fd with the
// first sendmsg() of a do/while that finishes a short stream write; after that first send it
// clears msg_control, so the loop repeats the rest of the text, never the fd.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static int notify_with_fd(int channel, const char *text, int fd) {
  char buf[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = (void *)text, .iov_len = strlen(text)};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
  if (fd >= 0) {
    msg.msg_control = buf;
    msg.msg_controllen = sizeof buf;
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  }
  ssize_t n;
  do {
    n = sendmsg(channel, &msg, MSG_NOSIGNAL);
    if (n < 0)
      return -1;
    /* Send the fds once, even when the stream takes the text in pieces. */
    msg.msg_control = NULL;
    msg.msg_controllen = 0;
    iov.iov_base = (char *)iov.iov_base + n;
    iov.iov_len -= (size_t)n;
  } while (iov.iov_len > 0);
  return 0;
}

// One connection handed to the manager per call, as systemd's notify_push_fd() callers do.
int store_first_connection(int manager) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  listen(listener, 16);
  int client = accept(listener, NULL, NULL);
  if (client < 0)
    return -1;
  int r = notify_with_fd(manager, "FDSTORE=1", client);
  close(client);
  close(listener);
  return r;
}
