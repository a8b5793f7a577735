// pos_map_key_binding.cc with a std::unordered_multimap (one socket may be listed under several
// names): emplace(key, value) keeps the key as the element's first, which the structured binding
// reads through the hidden iterator of the range-for (libstdc++ declares the unordered
// containers' iterators in std::__detail).
#include <cstring>
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

  void acceptOne() {
    int client = accept(listener_, nullptr, nullptr); // EXPECT-NOTE: socket created here
    if (client >= 0)
      peers_.emplace(client, "peer");
  }

  void handOver() {
    for (auto &[fd, name] : peers_) // EXPECT-NOTE: loop here
      sendFd(worker_, fd);          // EXPECT: afunix-fd-flood
    peers_.clear();
  }

private:
  int listener_ = -1;
  int worker_;
  std::unordered_multimap<int, std::string> peers_;
};

void serve(int worker) {
  Broker broker(worker);
  broker.acceptOne();
  broker.handOver();
}
