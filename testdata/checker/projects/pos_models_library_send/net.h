// A third-party socket library the project uses (only its header is seen, as a system header is),
// shaped like Boost.Asio's client side: connect() opens a StreamSocket when it holds none and
// connects it; write_some() and send() write on it; set_option() sets the option its argument's
// type names (BoolOption<level, name>). native_handle() gives the fd. The free functions
// net::connect(socket, endpoint) and net::write(socket, buffer) do what the methods do; connect()
// takes the base class, as Boost.Asio's does.
#pragma once
#pragma GCC system_header

#include <cstddef>

namespace net {
namespace local {
struct StreamProtocol {};
} // namespace local

template <typename Protocol> struct Endpoint {
  const char *where;
};

struct ConstBuffer {
  const void *data;
  std::size_t size;
};
template <std::size_t N> ConstBuffer buffer(const char (&data)[N]) { return {data, N}; }

template <int Level, int Name> class BoolOption {
public:
  explicit BoolOption(bool on = false);

private:
  int value_;
};

template <typename Protocol> class BasicSocket {
public:
  int native_handle();

protected:
  int fd_;
};

template <typename Protocol> class StreamSocket : public BasicSocket<Protocol> {
public:
  StreamSocket();
  ~StreamSocket();
  void connect(const Endpoint<Protocol> &endpoint);
  std::size_t write_some(const ConstBuffer &buffer);
  std::size_t send(const ConstBuffer &buffer, int flags = 0);
  template <typename Option> void set_option(const Option &option);
};

template <typename Protocol> void connect(BasicSocket<Protocol> &socket, const Endpoint<Protocol> &endpoint);
template <typename Protocol> std::size_t write(StreamSocket<Protocol> &socket, const ConstBuffer &buffer);
} // namespace net
