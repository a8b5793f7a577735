// A third-party socket library the project uses (only its header is seen, as a system header is),
// shaped like Boost.Asio: an Acceptor's constructor given an Endpoint opens, binds and listens;
// accept(peer) accepts a connection into the StreamSocket it is handed, the accept() without
// an argument returns one, and async_accept(handler) hands one to the handler when a client
// connects. native_handle() gives an object's fd.
#pragma once
#pragma GCC system_header

namespace net {
namespace local {
struct StreamProtocol {};
} // namespace local

template <typename Protocol> struct Endpoint {
  const char *where;
};

template <typename Protocol> class StreamSocket {
public:
  StreamSocket();
  StreamSocket(StreamSocket &&other);
  ~StreamSocket();
  int native_handle();

private:
  int fd_;
};

template <typename Protocol> class Acceptor {
public:
  explicit Acceptor(Protocol protocol);
  explicit Acceptor(const Endpoint<Protocol> &endpoint);
  ~Acceptor();
  void bind(const Endpoint<Protocol> &endpoint);
  void listen(int backlog = 16);
  void accept(StreamSocket<Protocol> &peer);
  StreamSocket<Protocol> accept();
  template <typename Handler> void async_accept(Handler handler) { pending_ = &handler; }
  int native_handle();

private:
  int fd_;
  void *pending_;
};
} // namespace net
