// The requesting side: a client connects, sends its request, and only then enables SO_PASSCRED
// to check that the answer comes from root. A server that answers at once has queued the answer
// before the option, and it arrives with pid=0 uid=65534 (measured on 6.18, stream and seqpacket,
// as root and as uid 65534), so the check fails for a fast server. Enabling it after connect()
// but before the first send is correct (neg_client_before_send.c).
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int ask_root(const char *path, const char *question) {
  int one = 1;
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: socket created here
  if (fd < 0)
    return -1;
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) // EXPECT-NOTE: connect() here
    return -1;
  if (write(fd, question, strlen(question)) < 0) // EXPECT-NOTE: the request is sent here, before SO_PASSCRED is enabled
    return -1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: on client socket 'fd' only after it sent a request EXPECT-SEVERITY: warning

  char answer[64];
  union {
    char b[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } control;
  struct iovec iov = {.iov_base = answer, .iov_len = sizeof answer};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.b,
                       .msg_controllen = sizeof control.b};
  if (recvmsg(fd, &msg, 0) <= 0) // EXPECT-NOTE: the answer's credentials are read here
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS || ((struct ucred *)CMSG_DATA(c))->uid != 0)
    return -1;
  return 0;
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: if (connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) // EXPECT-NOTE: connect() here
