// dbus-daemon's way: the peer is authenticated with SO_PEERCRED, and every recvmsg() keeps a
// control buffer for the fds a client may pass. No SO_PASSCRED anywhere, and nothing is wrong:
// the probe must not report credentials as missing. Three connections: SO_PEERCRED asked before
// the first read, asked after it, and never asked (a plain fd receiver, whose peer sends no
// credentials either).
// PROBE-EXPECT: none
#include "probe_util.h"

enum { kFdSlots = 4 };

static int receive_with_fd_buffer(int fd) {
  char data[16];
  struct iovec iov = {data, sizeof data};
  union {
    char buf[CMSG_SPACE(sizeof(int) * kFdSlots)];
    struct cmsghdr align;
  } u;
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = u.buf;
  msg.msg_controllen = sizeof u.buf;
  ssize_t n = recvmsg(fd, &msg, 0);
  CHECK(n >= 0);
  return (int)n;
}

static pid_t peer_pid(int fd) {
  struct ucred cred;
  socklen_t len = sizeof cred;
  CHECK(getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0);
  return cred.pid;
}

int main(void) {
  int listener, client;
  listener_and_client(&listener, &client, 0);
  struct sockaddr_un addr;
  socklen_t len = sizeof addr;
  CHECK(getsockname(listener, (struct sockaddr *)&addr, &len) == 0);
  int clients[3] = {client, -1, -1};
  for (int i = 1; i < 3; ++i) {
    clients[i] = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(clients[i] >= 0);
    CHECK(connect(clients[i], (struct sockaddr *)&addr, len) == 0);
  }
  int authenticated = 0;
  for (int i = 0; i < 3; ++i) {
    int conn = accept(listener, NULL, NULL);
    CHECK(conn >= 0);
    CHECK(write(clients[i], "hello", 5) == 5);
    if (i == 0)
      authenticated += peer_pid(conn) == getpid();
    CHECK(receive_with_fd_buffer(conn) == 5);
    if (i == 1)
      authenticated += peer_pid(conn) == getpid();
    close(conn);
  }
  printf("3 connections read, %d authenticated with SO_PEERCRED\n", authenticated);
  for (int i = 0; i < 3; ++i)
    close(clients[i]);
  close(listener);
  return 0;
}
