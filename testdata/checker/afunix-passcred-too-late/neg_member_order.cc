// C++: the listener member gets SO_PASSCRED in the constructor, before listen() in start();
// accepted sockets inherit it. A datagram member is configured before bind().
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

class Bus {
public:
  Bus() : listen_fd_(::socket(AF_UNIX, SOCK_STREAM, 0)), dgram_fd_(::socket(AF_UNIX, SOCK_DGRAM, 0)) {
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  }

  bool start(const sockaddr_un &addr) {
    int one = 1;
    ::setsockopt(this->dgram_fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    if (::bind(dgram_fd_, reinterpret_cast<const sockaddr *>(&addr), sizeof addr) < 0)
      return false;
    return ::listen(listen_fd_, 16) == 0;
  }

  int next() { return ::accept(listen_fd_, nullptr, nullptr); }

private:
  int listen_fd_;
  int dgram_fd_;
};

int run_bus(const sockaddr_un &addr) {
  Bus bus;
  return bus.start(addr) ? bus.next() : -1;
}
