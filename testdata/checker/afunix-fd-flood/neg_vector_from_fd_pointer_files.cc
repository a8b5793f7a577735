// The batch of pos_vector_from_fd_pointer.cc, built from a pointer to two regular files per
// turn: files are never AF_UNIX sockets, so nothing is reported.
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

static bool SendBatch(int channel, const std::vector<int> &fds) {
  char byte = 0;
  iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(int) * 8)];
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  return sendmsg(channel, &msg, 0) == 1;
}

void hand_out(int broker) {
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if ((pair[0] = open("/dev/null", O_RDONLY)) < 0 || (pair[1] = open("/dev/null", O_RDONLY)) < 0)
      return;
    const int *ends = pair;
    std::vector<int> batch(ends, ends + 2);
    SendBatch(broker, batch);
    close(pair[0]);
    close(pair[1]);
  }
}
