// Sockets sent in chunks of at most 64 per message, each chunk acknowledged before the next.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHUNK 64

static int send_chunk(int over, const int *fds, int n) {
  char byte = 0;
  char buf[CMSG_SPACE(sizeof(int) * CHUNK)];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = buf,
                       .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n)};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
  memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * (size_t)n);
  return sendmsg(over, &msg, 0) < 0 ? -1 : 0;
}

int pass_in_chunks(int over, int total) {
  int ends[CHUNK];
  for (int done = 0; done < total;) {
    int n = total - done < CHUNK ? total - done : CHUNK;
    for (int i = 0; i < n; i++) {
      int sv[2];
      socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
      ends[i] = sv[0];
      close(sv[1]);
    }
    if (send_chunk(over, ends, n) < 0)
      return -1;
    for (int i = 0; i < n; i++)
      close(ends[i]);
    char ack;
    if (recv(over, &ack, 1, 0) != 1)
      return -1;
    done += n;
  }
  return 0;
}
