// Counts known only at run time, capped before the message is built: the cap is the most the
// code lets them reach, and these caps are above SCM_MAX_FD (253). A queue of fds sized in bytes
// (a ring buffer of 4096 bytes, 1024 ints) sends what it holds, up to its capacity; a batch is
// cut to 300.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>

#define QUEUE_BYTES 4096
#define MAX_QUEUED_FDS (QUEUE_BYTES / sizeof(int))

struct fd_queue {
  size_t used; // bytes
  char data[QUEUE_BYTES];
};

static void fill_rights(struct fd_queue *queue, char *control, size_t *length) {
  size_t size = queue->used;
  if (size > MAX_QUEUED_FDS * sizeof(int))
    size = MAX_QUEUED_FDS * sizeof(int);
  struct cmsghdr *cmsg = (struct cmsghdr *)control;
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(size); // EXPECT: afunix-fd-limit // EXPECT-MESSAGE: can carry 1024 fds
  memcpy(CMSG_DATA(cmsg), queue->data, size); // EXPECT-NOTE: payload
  *length = cmsg->cmsg_len;
}

int flush_queue(int over, struct fd_queue *queue) {
  char control[CMSG_LEN(QUEUE_BYTES)];
  size_t length;
  fill_rights(queue, control, &length);
  char byte = 0;
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = length};
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}

int send_batch(int over, const int *fds, int n) {
  if (n > 300)
    n = 300;
  union {
    char buf[CMSG_SPACE(sizeof(int) * 256)];
    struct cmsghdr align;
  } u;
  char byte = 0;
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(n * sizeof(int)); // EXPECT: afunix-fd-limit // EXPECT-MESSAGE: can carry 300 fds
  memcpy(CMSG_DATA(cmsg), fds, n * sizeof(int));
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}
