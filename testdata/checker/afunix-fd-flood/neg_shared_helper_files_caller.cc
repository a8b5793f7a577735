// One helper sends a vector of fds (taken by reference) for two callers: the session handshake
// sends a fresh socket once per connection and waits for the reply, the log rotation sends
// regular files in a loop. The files are not sockets: what the helper's parameter holds for the
// handshake is not what the rotation hands it.
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
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
  return sendmsg(channel, &msg, 0) >= 0;
}

} // namespace

// Once per connection, acknowledged: the peer answers before anything else is sent.
bool Handshake(int connection) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    return false;
  std::vector<int> events = {pair[1]};
  bool sent = SendFds(connection, events);
  close(pair[1]);
  char ack;
  return sent && recv(connection, &ack, 1, 0) == 1;
}

// Every log file, one message each: regular files.
void RotateLogs(int collector, const std::vector<std::string> &paths) {
  for (const std::string &path : paths) {
    std::vector<int> file = {open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (file[0] < 0)
      continue;
    SendFds(collector, file);
    close(file[0]);
  }
}
