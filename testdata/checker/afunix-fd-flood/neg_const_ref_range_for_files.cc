// The const-reference range-for of pos_const_ref_range_for.cc over regular files: files are never
// AF_UNIX sockets, so nothing is reported.
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

static void send_one(int channel, int fd) {
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
  (void)sendmsg(channel, &msg, 0);
}

void hand_out(int broker, int clients) {
  std::vector<int> fds;
  for (int i = 0; i < clients; i++) {
    int sv[2];
    if ((sv[0] = open("/dev/null", O_RDONLY)) < 0 || (sv[1] = open("/dev/null", O_RDONLY)) < 0)
      return;
    fds.push_back(sv[0]);
    close(sv[1]);
  }
  for (const int &fd : fds)
    send_one(broker, fd);
}
