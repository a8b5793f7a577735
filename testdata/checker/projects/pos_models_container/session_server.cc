// A session server hands every accepted client to its worker in an ipc::FdList, in a loop that
// never waits for the worker to take one.
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fd_list.h"

namespace {

bool SendList(int channel, const ipc::FdList &list) {
  char tag = 'S';
  iovec iov = {&tag, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(16 * sizeof(int))] = {};
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(list.Count() * sizeof(int));
  cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(list.Count() * sizeof(int));
  memcpy(CMSG_DATA(cmsg), list.Fds(), list.Count() * sizeof(int));
  return sendmsg(channel, &msg, 0) >= 0; // EXPECT-NOTE: sent here
}

} // namespace

void ServeSessions(const sockaddr_un &address, int worker) {
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (bind(listener, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0 ||
      listen(listener, 32) != 0)
    return;
  for (;;) { // EXPECT-NOTE: loop here
    int client = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC); // EXPECT-NOTE: socket created here
    if (client < 0)
      continue;
    ipc::FdList list;
    list.Add(client);
    SendList(worker, list); // EXPECT: afunix-fd-flood
    close(client);
  }
}
