#include "server.h"

#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>

bool Server::start(const char *path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  listener_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)); // EXPECT-NOTE: listening socket created here
  return ::bind(listener_.get(), reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0 &&
         ::listen(listener_.get(), 32) == 0;
}

void Server::accept_one() {
  auto conn = std::make_unique<Connection>(UniqueFd(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC))); // EXPECT-NOTE: accept() here
  if (conn->authenticate())
    connections_.push_back(std::move(conn));
}
