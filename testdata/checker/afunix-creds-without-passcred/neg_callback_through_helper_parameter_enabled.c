// pos_callback_through_helper_parameter.c with the calls the other way round: the function that
// reads credentials is handed the log socket, which has SO_PASSCRED; the audit socket, which has
// not, is only drained.
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
  if (recvmsg(fd, &msg, 0) < 0)
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
  int audit = socket(AF_UNIX, SOCK_DGRAM, 0);
  if (bind(log, (struct sockaddr *)&log_addr, sizeof log_addr) < 0 ||
      bind(audit, (struct sockaddr *)&audit_addr, sizeof audit_addr) < 0)
    return -1;
  with_peer(audit, drain);
  with_peer(log, check_sender);
  return last_uid;
}
