// A third-party socket library the project uses (only its header is seen, as a system header is),
// shaped like Boost.Asio's client side: a StreamSocket made without a protocol holds no socket;
// open() makes one, and connect() opens it first when it holds none, then connects;
// set_option() sets the option its argument's type names (BoolOption<level, name>).
// native_handle() gives the fd.
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
  ~StreamSocket();
  void open(Protocol protocol = Protocol());
  void connect(const Endpoint<Protocol> &endpoint);
  template <typename Option> void set_option(const Option &option);
  int native_handle();

private:
  int fd_;
};
} // namespace net
