// One helper sends a vector of fds (taken by reference) for two loops that never wait: each
// finding names the socket its own loop makes, not the other caller's.
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

namespace {

bool SendFds(int channel, const std::vector<int> &fds) {
  char tag = 'F';
  iovec iov = {&tag, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))] = {};
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(fds.size() * sizeof(int));
  cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(fds.size() * sizeof(int));
  memcpy(CMSG_DATA(cmsg), fds.data(), fds.size() * sizeof(int));
  return sendmsg(channel, &msg, 0) >= 0; // EXPECT-NOTE: sent here
}

} // namespace

void Subscribe(int client, unsigned subscribers) {
  for (unsigned i = 0; i < subscribers; ++i) { // EXPECT-NOTE: loop here
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) != 0) // EXPECT-NOTE: socket created here
      return;
    std::vector<int> channel = {pair[1]};
    SendFds(client, channel); // EXPECT: afunix-fd-flood
    close(pair[1]);
  }
}

void Dispatch(int worker) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  if (listen(listener, 16) != 0)
    return;
  for (;;) { // EXPECT-NOTE: loop here
    int conn = accept(listener, nullptr, nullptr); // EXPECT-NOTE: socket created here
    if (conn < 0)
      continue;
    std::vector<int> one = {conn};
    SendFds(worker, one); // EXPECT: afunix-fd-flood
    close(conn);
  }
}
