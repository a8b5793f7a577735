// The sending side builds an SCM_CREDENTIALS message: assigning cmsg_type is not reading it.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int send_with_creds(int fd) {
  char byte = 0;
  struct iovec iov = {&byte, 1};
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(struct ucred))];
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_CREDENTIALS;
  c->cmsg_len = CMSG_LEN(sizeof(struct ucred));
  struct ucred uc = {.pid = getpid(), .uid = getuid(), .gid = getgid()};
  memcpy(CMSG_DATA(c), &uc, sizeof uc);
  char reply[8];
  struct iovec riov = {reply, sizeof reply};
  struct msghdr rmsg = {.msg_iov = &riov, .msg_iovlen = 1};
  sendmsg(fd, &msg, 0);
  return (int)recvmsg(fd, &rmsg, 0);
}

int main(void) {
  int sv[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
  return send_with_creds(sv[0]);
}
