// pos_vector_of_fds.cc handing out regular files, not sockets: a file in flight is never a
// candidate of the unix garbage collector, and a send of it never waits for it.
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

static bool SendWithFds(int channel, const void *data, size_t size, const std::vector<int> &fds) {
  iovec iov = {const_cast<void *>(data), size};
  char control[CMSG_SPACE(sizeof(int) * 4)];
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
  return sendmsg(channel, &msg, 0) >= 0;
}

void hand_out_channels(int broker, int clients) {
  for (int i = 0; i < clients; ++i) {
    int file = open("/var/lib/app/data", O_RDONLY | O_CLOEXEC);
    if (file < 0)
      return;
    std::vector<int> fds;
    fds.push_back(file);
    SendWithFds(broker, "c", 1, fds);
    close(file);
  }
}
