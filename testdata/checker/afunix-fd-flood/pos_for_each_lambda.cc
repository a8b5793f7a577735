// A loop without a loop statement: std::for_each() calls a lambda with each fd of a vector, and
// the lambda passes it over the channel. The vector holds a fresh socketpair end per client; no
// reply is read. The library's loop is modelled at the std::for_each() call.
#include <sys/socket.h>
#include <unistd.h>
#include <string.h>
#include <algorithm>
#include <vector>

static void send_fd(int ch, int fd) {
  char byte = 0;
  iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(int))];
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  sendmsg(ch, &msg, 0); // EXPECT-NOTE: sent here
}

void hand_out(int ch, int n) {
  std::vector<int> fds;
  for (int i = 0; i < n; i++) {
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv); // EXPECT-NOTE: socket created here
    fds.push_back(sv[0]);
  }
  std::for_each(fds.begin(), fds.end(), [&](int fd) { send_fd(ch, fd); }); // EXPECT: afunix-fd-flood:3 EXPECT-MESSAGE: passing AF_UNIX socket '*fds.begin()' over 'ch' in a loop
}
