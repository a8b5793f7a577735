// C++: an endpoint class that can be unix or inet; SO_PASSCRED only for the unix one, decided
// by the family it was created with.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

class Endpoint {
public:
  explicit Endpoint(int family) : family_(family), fd_(::socket(family, SOCK_STREAM, 0)) {}

  void enable_credentials() {
    int one = 1;
    if (family_ == AF_UNIX)
      ::setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  }

private:
  int family_;
  int fd_;
};

class LocalEndpoint {
public:
  LocalEndpoint() : fd_(::socket(AF_LOCAL, SOCK_SEQPACKET, 0)) {
    int one = 1;
    ::setsockopt(this->fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    ::setsockopt(this->fd_, SOL_SOCKET, SO_PASSSEC, &one, sizeof one);
  }

private:
  int fd_;
};

void make_endpoints() {
  Endpoint e(AF_INET);
  e.enable_credentials();
  LocalEndpoint local;
}
