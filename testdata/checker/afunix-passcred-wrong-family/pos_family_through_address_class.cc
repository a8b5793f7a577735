// C++, the shape of MPD's listeners: a server keeps its listeners in a vector, each built in place
// by emplace_back() through a constructor template, holding its address as a heap copy of the
// bytes (malloc + memcpy into a struct sockaddr *) of a TCP address class whose constexpr factory
// fills in a sockaddr_in6. The family crosses the template constructor, the conversion, the copy,
// the getter and the range-for that opens each listener.
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>
#include <utility>

class SocketAddress {
public:
  constexpr SocketAddress(const struct sockaddr *address, socklen_t size) : address_(address), size_(size) {}
  const struct sockaddr *data() const { return address_; }
  socklen_t size() const { return size_; }

private:
  const struct sockaddr *address_;
  socklen_t size_;
};

class TcpAddress {
public:
  explicit constexpr TcpAddress(unsigned port) : address_(Make(port)) {}
  operator SocketAddress() const {
    return SocketAddress(reinterpret_cast<const struct sockaddr *>(&address_), sizeof(address_));
  }

private:
  static constexpr struct sockaddr_in6 Make(unsigned port) {
    struct sockaddr_in6 sin6{};
    sin6.sin6_family = AF_INET6;
    sin6.sin6_port = htons(port);
    return sin6;
  }
  struct sockaddr_in6 address_;
};

class OwnedAddress {
public:
  explicit OwnedAddress(SocketAddress src) : size_(src.size()) {
    address_ = static_cast<struct sockaddr *>(malloc(size_));
    memcpy(address_, src.data(), size_);
  }
  OwnedAddress(OwnedAddress &&other) noexcept : address_(std::exchange(other.address_, nullptr)), size_(other.size_) {}
  ~OwnedAddress() { free(address_); }
  int family() const { return address_->sa_family; }
  const struct sockaddr *data() const { return address_; }
  socklen_t size() const { return size_; }

private:
  struct sockaddr *address_;
  socklen_t size_;
};

static int bind_listen(int domain, const OwnedAddress &address) {
  int fd = socket(domain, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-wrong-family:3 // EXPECT-MESSAGE: created with AF_INET6
  if (bind(fd, address.data(), address.size()) < 0 || listen(fd, 5) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

class Server {
public:
  void AddPort(unsigned port) { listeners_.emplace_back(TcpAddress(port)); }
  bool Open() {
    for (const Listener &l : listeners_)
      if (bind_listen(l.address.family(), l.address) < 0)
        return false;
    return true;
  }

private:
  struct Listener {
    template <typename A>
    explicit Listener(A &&a) : address(std::forward<A>(a)) {}
    OwnedAddress address;
  };
  std::vector<Listener> listeners_;
};

int main() {
  Server server;
  server.AddPort(6600);
  return server.Open() ? 0 : 1;
}
