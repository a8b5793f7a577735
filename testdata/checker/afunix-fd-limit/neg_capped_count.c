// Counts capped at or below SCM_MAX_FD (253) before the message is built, and a count whose cap
// is overwritten or handed out by address before it is read (known only at run time again):
// nothing to report.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>

#define QUEUE_BYTES 256
#define MAX_QUEUED_FDS (QUEUE_BYTES / sizeof(int))

struct fd_queue {
  size_t used; // bytes
  char data[QUEUE_BYTES];
};

// seatd's queue: 256 bytes, so at most 64 fds a message.
static void fill_rights(struct fd_queue *queue, char *control, size_t *length) {
  size_t size = queue->used;
  if (size > MAX_QUEUED_FDS * sizeof(int))
    size = MAX_QUEUED_FDS * sizeof(int);
  struct cmsghdr *cmsg = (struct cmsghdr *)control;
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(size);
  memcpy(CMSG_DATA(cmsg), queue->data, size);
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

int send_batch(int over, const int *fds, int n, int wanted) {
  if (n >= 253)
    n = 253;
  int m = n;
  if (m > 300)
    m = 300;
  m = wanted; // the cap no longer holds: a run-time count
  union {
    char buf[CMSG_SPACE(sizeof(int) * 253)];
    struct cmsghdr align;
  } u;
  char byte = 0;
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(n * sizeof(int));
  memcpy(CMSG_DATA(cmsg), fds, m * sizeof(int));
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}

// A cap whose variable is handed to a callee by address afterwards: the callee may raise it, so
// the count is known only at run time again.
void refill(int *count);

int send_refilled(int over, const int *fds, int k) {
  if (k > 300)
    k = 300;
  refill(&k);
  union {
    char buf[CMSG_SPACE(sizeof(int) * 253)];
    struct cmsghdr align;
  } u;
  char byte = 0;
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(k * sizeof(int));
  memcpy(CMSG_DATA(cmsg), fds, k * sizeof(int));
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}
