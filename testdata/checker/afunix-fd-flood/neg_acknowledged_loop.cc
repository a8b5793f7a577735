// C++: the same dispatcher, but it waits for the worker's one-byte acknowledgement after each
// hand-off, so at most one socket is in flight.
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

static bool sendFd(int over, int fd) {
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
  return sendmsg(over, &msg, 0) == 1;
}

class Dispatcher {
public:
  explicit Dispatcher(int worker) : worker_(worker) {
    listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    listen(listener_, 64);
  }

  void run() {
    while (true) {
      int client = accept(listener_, nullptr, nullptr);
      if (client < 0)
        continue;
      sendFd(worker_, client);
      close(client);
      char ack;
      if (recv(worker_, &ack, 1, 0) != 1)
        return;
    }
  }

private:
  int listener_ = -1;
  int worker_;
};
