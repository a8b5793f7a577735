// A control server on the library's acceptor, enabling SO_PASSCRED on the open socket before it
// is bound and listens.
#include <sys/socket.h>

#include "net.h"

using UnixAcceptor = net::Acceptor<net::local::StreamProtocol>;

class ControlServer {
public:
  bool Start(const char *path) {
    acceptor_.open(net::local::StreamProtocol{});
    int on = 1;
    if (setsockopt(acceptor_.native_handle(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0)
      return false;
    acceptor_.bind(net::Endpoint<net::local::StreamProtocol>{path});
    acceptor_.listen();
    return true;
  }

private:
  UnixAcceptor acceptor_;
};

int serve_once(const char *path) {
  UnixAcceptor acceptor(net::local::StreamProtocol{});
  int on = 1;
  int set = setsockopt(acceptor.native_handle(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  acceptor.bind(net::Endpoint<net::local::StreamProtocol>{path});
  acceptor.listen();
  return set;
}

int open_log(const char *path) {
  net::DatagramSocket<net::local::DatagramProtocol> log;
  log.open(net::local::DatagramProtocol{});
  int on = 1;
  int set = setsockopt(log.native_handle(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  log.bind(net::Endpoint<net::local::DatagramProtocol>{path});
  return set;
}

bool start(ControlServer *server, const char *path) { return server->Start(path); }
