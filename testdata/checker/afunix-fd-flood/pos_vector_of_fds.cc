// A browser-base-style wrapper: SendWithFds(channel, data, size, fds) copies fds.data() into the
// control message. A broker hands every new client a fresh socketpair end, in a loop, with no
// acknowledgement: the fds pile up in flight. The fds are followed into the std::vector.
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
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
  return sendmsg(channel, &msg, 0) >= 0; // EXPECT-NOTE: sent here
}

void hand_out_channels(int broker, int clients) {
  for (int i = 0; i < clients; ++i) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) // EXPECT-NOTE: socket created here
      return;
    std::vector<int> fds;
    fds.push_back(sv[1]);
    SendWithFds(broker, "c", 1, fds); // EXPECT: afunix-fd-flood:5
    close(sv[1]);
  }
}
