// A stream listener handed over by systemd (socket activation, a unit without PassCredentials=):
// the connection that started the service is already pending when the daemon enables SO_PASSCRED
// on the listener. Since 6.16 an accepted socket takes the listener's flags at connect(), so that
// connection never gets SO_PASSCRED and its messages come with no credentials at all (measured on
// 6.18: SO_PASSCRED=0 on the accepted socket, no SCM_CREDENTIALS cmsg); 3.12-6.15 copy the flag
// at accept(). Only the socket's creator can enable it in time.
#define _GNU_SOURCE
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int sd_listen_fds(int unset_environment);
#define SD_LISTEN_FDS_START 3

static int peer_uid(int fd) {
  char buf[64];
  union {
    char b[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } control;
  struct iovec iov = {.iov_base = buf, .iov_len = sizeof buf};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.b,
                       .msg_controllen = sizeof control.b};
  if (recvmsg(fd, &msg, 0) < 0)
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return -1;
  return (int)((struct ucred *)CMSG_DATA(c))->uid;
}

int main(void) {
  if (sd_listen_fds(1) < 1)
    return 1;
  int listener = SD_LISTEN_FDS_START; // EXPECT-NOTE: the program takes the socket over here
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: on listener 'listener' only here EXPECT-MESSAGE: clients may have connected before this point EXPECT-MESSAGE: set PassCredentials=yes in the socket unit that hands it over EXPECT-SEVERITY: warning
  for (;;) {
    int conn = accept(listener, NULL, NULL);
    if (conn < 0)
      continue;
    if (peer_uid(conn) == 0)
      write(conn, "ok\n", 3);
    close(conn);
  }
}
