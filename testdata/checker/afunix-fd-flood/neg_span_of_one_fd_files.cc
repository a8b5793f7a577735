// The loops of pos_span_of_one_fd.cc, each handing over one regular file per turn through a
// span over a single int or one std::array element: files are never AF_UNIX sockets, so nothing
// is reported, although a socketpair() is made beside them.
// ARGS: -std=c++20
#include <fcntl.h>
#include <array>
#include <span>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static bool SendFds(int channel, std::span<const int> fds) {
  char byte = 0;
  iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(int) * 8)];
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(fds.size_bytes());
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(fds.size_bytes());
  memcpy(CMSG_DATA(c), fds.data(), fds.size_bytes());
  return sendmsg(channel, &msg, 0) == 1;
}

void hand_out_one(int broker) {
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0)
      return;
    int file = open("/dev/null", O_RDONLY);
    SendFds(broker, std::span<const int>(&file, 1));
    close(file);
    close(pair[0]);
    close(pair[1]);
  }
}

void hand_out_array_element(int broker) {
  for (int i = 0; i < 100000; i++) {
    std::array<int, 2> files{};
    files[0] = open("/dev/null", O_RDONLY);
    files[1] = open("/dev/zero", O_RDONLY);
    SendFds(broker, std::span<const int>(&files[1], 1));
    close(files[0]);
    close(files[1]);
  }
}
