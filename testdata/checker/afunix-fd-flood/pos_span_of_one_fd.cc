// The span wrapper of pos_span_wrapper.cc handed one fd at a time: a span over a single int
// (`std::span<const int>(&fd, 1)`) or over one element of a std::array (`&pair[1]`). A pointer to
// one value hands over that value. Each loop sends a fresh socketpair end and reads no reply.
// ARGS: -std=c++20
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
  return sendmsg(channel, &msg, 0) == 1; // EXPECT-NOTE: sent here
}

void hand_out_one(int broker) {
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) // EXPECT-NOTE: socket created here
      return;
    int theirs = pair[1];
    SendFds(broker, std::span<const int>(&theirs, 1)); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: passing AF_UNIX sockets from 'std::span<const int>(&theirs, 1)' over 'broker' in a loop (through 'SendFds')
    close(pair[0]);
    close(pair[1]);
  }
}

void hand_out_array_element(int broker) {
  for (int i = 0; i < 100000; i++) {
    std::array<int, 2> pair{};
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair.data()) < 0) // EXPECT-NOTE: socket created here
      return;
    SendFds(broker, std::span<const int>(&pair[1], 1)); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: passing AF_UNIX sockets from 'std::span<const int>(&pair[1], 1)' over 'broker' in a loop (through 'SendFds')
    close(pair[0]);
    close(pair[1]);
  }
}
