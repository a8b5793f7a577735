// A helper calls the function it is handed on the socket it is handed: with_peer(fd, fn). It is
// called twice, each time with another socket and another function. The audit socket never gets
// SO_PASSCRED and its function reads the sender's credentials; the log socket has it and its
// function only drains it. Read per call, check_sender() gets the audit socket alone, and the
// finding is at the call that hands it over.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

static int last_uid = -1;

static void with_peer(int fd, void (*fn)(int)) { fn(fd); }

static void check_sender(int fd) {
  char data[64];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {data, sizeof data};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
  if (recvmsg(fd, &msg, 0) < 0) // EXPECT-NOTE: credentials are read here
    return;
  struct cmsghdr *h = CMSG_FIRSTHDR(&msg);
  if (h && h->cmsg_type == SCM_CREDENTIALS) {
    struct ucred creds;
    memcpy(&creds, CMSG_DATA(h), sizeof creds);
    last_uid = (int)creds.uid;
  }
}

static void drain(int fd) { recv(fd, NULL, 0, MSG_DONTWAIT); }

int serve(void) {
  struct sockaddr_un log_addr = {.sun_family = AF_UNIX, .sun_path = "/run/collector/log"};
  struct sockaddr_un audit_addr = {.sun_family = AF_UNIX, .sun_path = "/run/collector/audit"};
  int on = 1;
  int log = socket(AF_UNIX, SOCK_DGRAM, 0);
  setsockopt(log, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  int audit = socket(AF_UNIX, SOCK_DGRAM, 0); // EXPECT-NOTE: socket created here
  if (bind(log, (struct sockaddr *)&log_addr, sizeof log_addr) < 0 ||
      bind(audit, (struct sockaddr *)&audit_addr, sizeof audit_addr) < 0)
    return -1;
  with_peer(log, drain);
  with_peer(audit, check_sender); // EXPECT: afunix-creds-without-passcred
  return last_uid;
}

// The fix-it, as --fix applies it: the audit socket, right after socket().
// EXPECT-FIXED: int audit = socket(AF_UNIX, SOCK_DGRAM, 0); // EXPECT-NOTE: socket created here
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(audit, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
