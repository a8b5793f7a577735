// The server of pos_family_through_address_class.cc given a local address instead: the family
// that reaches socket() is AF_UNIX, where SO_PASSCRED is valid.
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
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

class LocalAddress {
public:
  explicit constexpr LocalAddress(const char *path) : address_(Make(path)) {}
  operator SocketAddress() const {
    return SocketAddress(reinterpret_cast<const struct sockaddr *>(&address_), sizeof(address_));
  }

private:
  static constexpr struct sockaddr_un Make(const char *path) {
    struct sockaddr_un sun{};
    sun.sun_family = AF_UNIX;
    for (unsigned i = 0; path[i] != 0 && i + 1 < sizeof sun.sun_path; ++i)
      sun.sun_path[i] = path[i];
    return sun;
  }
  struct sockaddr_un address_;
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
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  if (bind(fd, address.data(), address.size()) < 0 || listen(fd, 5) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

class Server {
public:
  void AddPath(const char *path) { listeners_.emplace_back(LocalAddress(path)); }
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
  server.AddPath("/run/mpd/socket");
  return server.Open() ? 0 : 1;
}
