// A wrapper takes its fds as a std::span<const int> by value (SendFds(channel, fds)) and copies
// fds.data() into the control message. A loop hands it both ends of a fresh socketpair, through
// a plain array the span is built from, and reads no reply: the fds pile up in flight. The span
// is the caller's array, copied into the parameter.
// ARGS: -std=c++20
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

void hand_out(int broker) {
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) // EXPECT-NOTE: socket created here
      return;
    int both[2] = {pair[0], pair[1]};
    SendFds(broker, both); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: passing AF_UNIX sockets from 'both' over 'broker' in a loop (through 'SendFds')
    close(pair[0]);
    close(pair[1]);
  }
}
