// A third-party socket library the project uses (only its header is seen, as a system header is),
// shaped like Boost.Asio: an Acceptor's constructor given an Endpoint opens, binds and listens, or
// given a Protocol only opens; accept(peer) accepts a connection into the StreamSocket it is
// handed; set_option() sets the option its argument's type names (BoolOption<level, name>, as
// Boost.Asio's socket_option::boolean). native_handle() gives an object's fd.
#pragma once
#pragma GCC system_header

namespace net {
namespace local {
struct StreamProtocol {};
} // namespace local

template <typename Protocol> struct Endpoint {
  const char *where;
};

template <int Level, int Name> class BoolOption {
public:
  explicit BoolOption(bool on = false);

private:
  int value_;
};

template <typename Protocol> class StreamSocket {
public:
  StreamSocket();
  StreamSocket(StreamSocket &&other);
  ~StreamSocket();
  template <typename Option> void set_option(const Option &option);
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
  template <typename Option> void set_option(const Option &option);
  int native_handle();

private:
  int fd_;
};
} // namespace net
