// A helper that reads credentials from its `int fd` parameter is judged by what its callers
// pass: the control socket gets SO_PASSCRED on its listener before listen(), the admin socket
// does not. Only the call that passes the admin connection is reported.
#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int read_peer_uid(int fd, uid_t *uid) {
  char byte;
  struct iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
                       .msg_controllen = sizeof control};
  if (recvmsg(fd, &msg, 0) <= 0) // EXPECT-NOTE: credentials are read here
    return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return -1;
  struct ucred uc;
  memcpy(&uc, CMSG_DATA(c), sizeof uc);
  *uid = uc.uid;
  return 0;
}

static int listen_at(const char *path, int passcred) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  int one = 1;
  if (passcred)
    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  bind(fd, (struct sockaddr *)&addr, sizeof addr);
  listen(fd, 16);
  return fd;
}

int control_loop(void) {
  int lfd = listen_at("/run/ctl.sock", 1);
  int cfd = accept(lfd, NULL, NULL);
  uid_t uid;
  return read_peer_uid(cfd, &uid);
}

int admin_loop(void) {
  int admin = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: socket created here
  listen(admin, 4);
  int conn = accept(admin, NULL, NULL);
  uid_t uid;
  return read_peer_uid(conn, &uid); // EXPECT: afunix-creds-without-passcred
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: int admin = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: socket created here
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(admin, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(admin, 4);
