// A batch vector built from a pointer to the fds (std::vector<int>(ends, ends + 2), the pointer a
// local that points at a fresh socketpair's ends) goes to a wrapper that sends its data(). The
// loop reads no reply, so the fds pile up in flight. The vector's elements are what the pointer
// points to.
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
  return sendmsg(channel, &msg, 0) == 1; // EXPECT-NOTE: sent here
}

void hand_out(int broker) {
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) // EXPECT-NOTE: socket created here
      return;
    const int *ends = pair;
    std::vector<int> batch(ends, ends + 2);
    SendBatch(broker, batch); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: over 'broker' in a loop (through 'SendBatch')
    close(pair[0]);
    close(pair[1]);
  }
}
