// A registry of pending clients in the shape of adbd's jdwp listener: each accepted connection is
// kept in a std::vector of fd owners until it speaks, found again with std::find_if when epoll
// says it is readable, and its credentials are read through the iterator (it->get()). The
// listener never gets SO_PASSCRED, so none arrive and every client is refused.
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

class UniqueFd {
public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  UniqueFd(UniqueFd &&other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd &operator=(UniqueFd &&other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~UniqueFd() {
    if (fd_ >= 0)
      close(fd_);
  }
  int get() const { return fd_; }

private:
  int fd_;
};

static bool sender_is_root(int socket) {
  char data[64];
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
  iovec iov{data, sizeof data};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(socket, &msg, 0) <= 0) // EXPECT-NOTE: credentials are read here
    return false;
  for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
      ucred cred;
      std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
      return cred.uid == 0;
    }
  return false;
}

void serve(const char *path) {
  UniqueFd listener(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)); // EXPECT-NOTE: listening socket created here
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (bind(listener.get(), reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || listen(listener.get(), 4) != 0)
    return;
  UniqueFd poller(epoll_create1(EPOLL_CLOEXEC));
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = -1;
  epoll_ctl(poller.get(), EPOLL_CTL_ADD, listener.get(), &event);
  std::vector<UniqueFd> pending;
  for (;;) {
    if (epoll_wait(poller.get(), &event, 1, -1) != 1)
      continue;
    if (event.data.fd == -1) {
      UniqueFd client(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC)); // EXPECT-NOTE: accept() here
      epoll_event readable{};
      readable.events = EPOLLIN;
      readable.data.fd = client.get();
      epoll_ctl(poller.get(), EPOLL_CTL_ADD, client.get(), &readable);
      pending.emplace_back(std::move(client));
      continue;
    }
    int ready = event.data.fd;
    auto it = std::find_if(pending.begin(), pending.end(), [&](const UniqueFd &fd) { return fd.get() == ready; });
    if (it == pending.end())
      continue;
    if (!sender_is_root(it->get())) // EXPECT: afunix-creds-without-passcred
      epoll_ctl(poller.get(), EPOLL_CTL_DEL, ready, nullptr);
    pending.erase(it);
  }
}
