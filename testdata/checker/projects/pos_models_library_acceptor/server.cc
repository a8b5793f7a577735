// A control server on the library's acceptor: SO_PASSCRED comes after the acceptor listens, so a
// client connecting in between gets no credentials (since 6.16).
#include <sys/socket.h>

#include "net.h"

using UnixAcceptor = net::Acceptor<net::local::StreamProtocol>;

class ControlServer {
public:
  bool Start(const char *path) {
    acceptor_.open(net::local::StreamProtocol{}); // EXPECT-NOTE: socket created here
    acceptor_.bind(net::Endpoint<net::local::StreamProtocol>{path});
    acceptor_.listen(); // EXPECT-NOTE: Acceptor::listen() listens on it here
    int on = 1;
    if (setsockopt(acceptor_.native_handle(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0) // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: listener 'acceptor_.native_handle()' after listen()
      return false;
    return true;
  }

private:
  UnixAcceptor acceptor_;
};

int serve_once(const char *path) {
  UnixAcceptor acceptor(net::Endpoint<net::local::StreamProtocol>{path}); // EXPECT-NOTE: socket created by Acceptor(), which listens on it before returning
  int on = 1;
  return setsockopt(acceptor.native_handle(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late
}

// The log socket: the datagrams queued between the constructor's bind and the option come
// without credentials.
int open_log(const char *path) {
  net::DatagramSocket<net::local::DatagramProtocol> log(net::Endpoint<net::local::DatagramProtocol>{path}); // EXPECT-NOTE: socket created by DatagramSocket(), which binds it before returning
  int on = 1;
  return setsockopt(log.native_handle(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: datagram socket 'log.native_handle()' after bind()
}

bool start(ControlServer *server, const char *path) { return server->Start(path); }

// The fix-it, as --fix applies it: the option (with its value) moved above the acceptor's
// listen().
// EXPECT-FIXED: acceptor_.bind(net::Endpoint<net::local::StreamProtocol>{path});
// EXPECT-FIXED: int on = 1;
// EXPECT-FIXED: return false;
// EXPECT-FIXED: acceptor_.listen(); // EXPECT-NOTE: Acceptor::listen() listens on it here
