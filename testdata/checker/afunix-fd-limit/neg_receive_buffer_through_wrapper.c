// A receive buffer sized for 16384 fds and read through the project's recvmsg() wrapper, its
// fds looked up by a helper that takes SCM_RIGHTS as an argument (systemd's json_stream_read()):
// the buffer only has to be big enough, the 253-fd limit is the sender's.
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define STREAM_FDS_MAX (16U * 1024U)

struct stream {
  int input_fd;
  void *input_control_buffer;
  size_t input_control_buffer_size;
};

static ssize_t recvmsg_safe(int sockfd, struct msghdr *h, int flags) {
  ssize_t n = recvmsg(sockfd, h, flags);
  return n < 0 ? -errno : n;
}

static void *cmsg_find_data(struct msghdr *mh, int level, int type) {
  for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
    if (c->cmsg_level == level && c->cmsg_type == type)
      return CMSG_DATA(c);
  return NULL;
}

int stream_read(struct stream *s, char *p, size_t size, int **fds) {
  struct iovec iov = {.iov_base = p, .iov_len = size};
  if (!s->input_control_buffer) {
    s->input_control_buffer_size = CMSG_SPACE(sizeof(int) * STREAM_FDS_MAX);
    s->input_control_buffer = malloc(s->input_control_buffer_size);
    if (!s->input_control_buffer)
      return -ENOMEM;
  }
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = s->input_control_buffer,
                      .msg_controllen = s->input_control_buffer_size};
  ssize_t n = recvmsg_safe(s->input_fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (n < 0)
    return (int)n;
  *fds = cmsg_find_data(&mh, SOL_SOCKET, SCM_RIGHTS);
  return (int)n;
}
