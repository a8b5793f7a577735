// An event hub on LLVM's ADT that waits for each subscriber to take its channels, and hands the
// worker log files: nothing piles up in flight.
#include <fcntl.h>
#include <sys/socket.h>
#include <string.h>
#include <unistd.h>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/SmallVector.h>

namespace hub {

// One message carrying every fd of `fds`.
static bool SendFds(int channel, llvm::ArrayRef<int> fds) {
  char tag = 'F';
  iovec iov = {&tag, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(8 * sizeof(int))] = {};
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

static bool OpenChannels(llvm::SmallVectorImpl<int> &out) {
  int events[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, events) != 0)
    return false;
  out.push_back(events[1]);
  return true;
}

// The subscriber answers each batch before the next one is sent.
void Subscribe(int client, unsigned subscribers) {
  for (unsigned i = 0; i < subscribers; ++i) {
    llvm::SmallVector<int, 4> channels;
    if (!OpenChannels(channels))
      return;
    if (!SendFds(client, channels))
      return;
    char ack;
    if (recv(client, &ack, 1, 0) != 1)
      return;
  }
}

// Log files, one SmallVector each: not sockets.
void HandOutLogs(int worker, llvm::ArrayRef<const char *> paths) {
  for (const char *path : paths) {
    llvm::SmallVector<int, 1> one = {open(path, O_RDONLY | O_CLOEXEC)};
    if (one[0] < 0)
      continue;
    SendFds(worker, one);
    close(one[0]);
  }
}

} // namespace hub
