#define _GNU_SOURCE
#include "ipc.h"

#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int recv_and_auth(int sock) {
  char buf[256];
  char control[CMSG_SPACE(sizeof(struct ucred))];
  struct iovec iov = {buf, sizeof(buf)};
  struct msghdr msg = {0};
  int on = 1;
  setsockopt(sock, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)); // already inherited: harmless
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  if (recvmsg(sock, &msg, 0) < 0)
    return -1;
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  if (!cmsg || cmsg->cmsg_type != SCM_CREDENTIALS)
    return -1;
  struct ucred cred;
  memcpy(&cred, CMSG_DATA(cmsg), sizeof(cred));
  return cred.uid == 0 ? 0 : -1;
}

static void acceptor(struct loop *l, int fd, void *data) {
  (void)l;
  (void)data;
  int sock = accept(fd, NULL, NULL);
  if (sock < 0)
    return;
  if (recv_and_auth(sock) < 0)
    close(sock);
}

int ipc_publish(struct loop *l, const char *path) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  int on = 1;
  if (fd < 0)
    return -1;
  strncpy(addr.sun_path, path, sizeof(addr.sun_path) - 1);
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0 ||
      listen(fd, 16) < 0) {
    close(fd);
    return -1;
  }
  loop_add(l, fd, acceptor, NULL);
  return 0;
}
