// Large control buffers that do not carry fds: credentials, and a receive buffer for many
// messages. Only SCM_RIGHTS payloads are limited to 253 fds.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>

int send_creds(int over) {
  char byte = 0;
  char buf[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = sizeof buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_CREDENTIALS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(struct ucred));
  struct ucred cred = {.pid = 1, .uid = 0, .gid = 0};
  memcpy(CMSG_DATA(cmsg), &cred, sizeof cred);
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}

int chunked(int over, const int *fds, int n) {
  for (int done = 0; done < n; done += 200) {
    int count = n - done < 200 ? n - done : 200;
    char byte = 0;
    char buf[CMSG_SPACE(200 * sizeof(int))];
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                         .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)count)};
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)count);
    memcpy(CMSG_DATA(cmsg), fds + done, sizeof(int) * (size_t)count);
    if (sendmsg(over, &msg, 0) < 0)
      return -1;
  }
  return 0;
}
