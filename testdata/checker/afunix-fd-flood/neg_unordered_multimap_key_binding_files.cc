// The broker of pos_unordered_multimap_key_binding.cc keeping open files by their fd instead:
// what the structured binding reads from the multimap's keys is a file, never a socket.
#include <cstring>
#include <fcntl.h>
#include <unordered_map>
#include <string>
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
  return sendmsg(over, &msg, 0) == 1;
}

} // namespace

class Broker {
public:
  explicit Broker(int worker) : worker_(worker) {
    listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    listen(listener_, 64);
  }

  void openOne() {
    int file = open("/var/log/broker.log", O_RDONLY | O_CLOEXEC);
    if (file >= 0)
      peers_.emplace(file, "log");
  }

  void handOver() {
    for (auto &[fd, name] : peers_)
      sendFd(worker_, fd);         
    peers_.clear();
  }

private:
  int listener_ = -1;
  int worker_;
  std::unordered_multimap<int, std::string> peers_;
};

void serve(int worker) {
  Broker broker(worker);
  broker.openOne();
  broker.handOver();
}
