// An event hub in the shape of a tool built on LLVM's ADT: it gives each subscriber fresh
// channels, gathered in a SmallVector and sent with one helper, and never waits for them to be
// taken.
#include <sys/socket.h>
#include <sys/un.h>
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
  return sendmsg(channel, &msg, 0) >= 0; // EXPECT-NOTE: sent here
}

// The event channel and the control channel of one subscriber, appended to `out`.
static bool OpenChannels(llvm::SmallVectorImpl<int> &out) {
  int events[2], control[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, events) != 0) // EXPECT-NOTE: socket created here
    return false;
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, control) != 0) {
    close(events[0]);
    close(events[1]);
    return false;
  }
  out.push_back(events[1]);
  out.push_back(control[1]);
  return true;
}

void Subscribe(int client, unsigned subscribers) {
  for (unsigned i = 0; i < subscribers; ++i) { // EXPECT-NOTE: loop here
    llvm::SmallVector<int, 4> channels;
    if (!OpenChannels(channels))
      return;
    SendFds(client, channels); // EXPECT: afunix-fd-flood
  }
}

// Every accepted connection is handed to the worker at once, in a one-element SmallVector built
// from a braced list and copied out with data().
void Dispatch(const sockaddr_un &address, int worker) {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  if (bind(listener, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0 ||
      listen(listener, 16) != 0)
    return;
  for (;;) { // EXPECT-NOTE: loop here
    int conn = accept(listener, nullptr, nullptr); // EXPECT-NOTE: socket created here
    if (conn < 0)
      continue;
    llvm::SmallVector<int, 1> one = {conn};
    char tag = 'C';
    iovec iov = {&tag, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cmsg), one.data(), sizeof(int));
    sendmsg(worker, &msg, 0); // EXPECT: afunix-fd-flood
    close(conn);
  }
}

} // namespace hub
