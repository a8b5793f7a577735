// The std::for_each() of pos_for_each_lambda.cc over regular files: files are never AF_UNIX
// sockets, so nothing is reported.
#include <sys/socket.h>
#include <unistd.h>
#include <string.h>
#include <algorithm>
#include <fcntl.h>
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
  sendmsg(ch, &msg, 0);
}

void hand_out(int ch, int n) {
  std::vector<int> fds;
  for (int i = 0; i < n; i++) {
    int sv[2] = {open("/dev/null", O_RDONLY), -1};
    fds.push_back(sv[0]);
  }
  std::for_each(fds.begin(), fds.end(), [&](int fd) { send_fd(ch, fd); });
}
