// The sendmsg() is in a lambda (Chromium's HANDLE_EINTR is a function template that calls
// one until it stops failing with EINTR): the lambda sends the message of the function around
// it, which it captured by reference, so the send is that function's. A dispatcher hands each
// accepted connection to a worker in a loop and reads no reply.
#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

// Chromium's shape: the retry is a function template around a lambda.
template <typename Fn> auto HandleEintr(Fn fn) {
  decltype(fn()) result;
  do {
    result = fn();
  } while (result == -1 && errno == EINTR);
  return result;
}
#define HANDLE_EINTR(x) HandleEintr([&]() { return (x); })

static bool SendFd(int over, int fd) {
  char byte = 0;
  alignas(cmsghdr) char buf[CMSG_SPACE(sizeof(int))];
  iovec iov{};
  iov.iov_base = &byte;
  iov.iov_len = 1;
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = buf;
  msg.msg_controllen = sizeof buf;
  cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  return HANDLE_EINTR(sendmsg(over, &msg, 0)) == 1; // EXPECT-NOTE: sent here
}

void Dispatch(int listener, int worker) {
  while (true) {
    int client = accept(listener, nullptr, nullptr); // EXPECT-NOTE: socket created here
    if (client < 0)
      continue;
    SendFd(worker, client); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: passing AF_UNIX socket 'client' over 'pair[0]' in a loop (through 'SendFd')
    close(client);
  }
}

int main() {
  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  listen(listener, 64);
  int pair[2];
  socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair);
  Dispatch(listener, pair[0]);
}
