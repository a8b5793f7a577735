// C++: a class keeps its listener in a member and forwards every accepted connection to a worker
// process through a helper, in a while loop that never hears back from the worker.
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

namespace {

bool sendFd(int over, int fd) {
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
  return sendmsg(over, &msg, 0) == 1; // EXPECT-NOTE: sent here
}

} // namespace

class Dispatcher {
public:
  explicit Dispatcher(int worker) : worker_(worker) {
    listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    listen(listener_, 64);
  }

  void run() {
    while (true) { // EXPECT-NOTE: loop here
      int client = accept(listener_, nullptr, nullptr); // EXPECT-NOTE: socket created here
      if (client < 0)
        continue;
      sendFd(worker_, client); // EXPECT: afunix-fd-flood
      close(client);
    }
  }

private:
  int listener_ = -1;
  int worker_;
};
