// pos_callback_through_helper_parameter.c in C++: the helper takes a `const std::function<void(int)>
// &` and each call hands it a lambda. Read per call, the lambda that reads credentials gets the
// audit socket alone; the finding is at its call of check_sender().
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <functional>

static int last_uid = -1;

static void with_peer(int fd, const std::function<void(int)> &fn) { fn(fd); }

static void check_sender(int fd) {
  char data[64];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {data, sizeof data};
  struct msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
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
  struct sockaddr_un log_addr = {AF_UNIX, "/run/collector/log"};
  struct sockaddr_un audit_addr = {AF_UNIX, "/run/collector/audit"};
  int on = 1;
  int log = socket(AF_UNIX, SOCK_DGRAM, 0);
  setsockopt(log, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  int audit = socket(AF_UNIX, SOCK_DGRAM, 0); // EXPECT-NOTE: socket created here
  if (bind(log, (struct sockaddr *)&log_addr, sizeof log_addr) < 0 ||
      bind(audit, (struct sockaddr *)&audit_addr, sizeof audit_addr) < 0)
    return -1;
  with_peer(audit, [](int fd) { check_sender(fd); }); // EXPECT: afunix-creds-without-passcred
  with_peer(log, [](int fd) { drain(fd); });
  return last_uid;
}

// The fix-it, as --fix applies it: the audit socket, right after socket().
// EXPECT-FIXED: int audit = socket(AF_UNIX, SOCK_DGRAM, 0); // EXPECT-NOTE: socket created here
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(audit, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
