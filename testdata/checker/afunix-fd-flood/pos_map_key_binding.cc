// C++: a broker keeps its accepted peers in a std::map keyed by their socket, and hands every
// one of them to a worker in a range-for over the map's key/value pairs: the key the structured
// binding reads is the socket accept() returned, stored by peers_[client]. So is what it->first
// and pair.first read.
#include <cstring>
#include <map>
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
      peers_[client] = "peer";
  }

  void handOver() {
    for (auto &[fd, name] : peers_) // EXPECT-NOTE: loop here
      sendFd(worker_, fd);          // EXPECT: afunix-fd-flood
    peers_.clear();
  }

  // The same key read as the element's first, through an iterator and a reference.
  void handOverByIterator() {
    for (auto it = peers_.begin(); it != peers_.end(); ++it) // EXPECT-NOTE: loop here
      sendFd(worker_, it->first);                            // EXPECT: afunix-fd-flood
  }
  void handOverByPair() {
    for (const auto &peer : peers_) // EXPECT-NOTE: loop here
      sendFd(worker_, peer.first);  // EXPECT: afunix-fd-flood
  }

private:
  int listener_ = -1;
  int worker_;
  std::map<int, std::string> peers_;
};

void serve(int worker) {
  Broker broker(worker);
  broker.acceptOne();
  broker.handOverByIterator();
  broker.handOverByPair();
  broker.handOver();
}
