// The same one-element array copied into the payload, holding a regular file per request: only
// AF_UNIX socket fds make sendmsg() wait for the unix garbage collector.
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void hand_out_logs(int worker, const char *const *paths, int n) {
  for (int i = 0; i < n; i++) {
    int pass[1] = {open(paths[i], O_RDONLY | O_CLOEXEC)};
    if (pass[0] < 0)
      continue;
    char byte = 0;
    char buf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                         .msg_controllen = sizeof buf};
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cmsg), pass, sizeof(int));
    sendmsg(worker, &msg, 0);
    close(pass[0]);
  }
}
