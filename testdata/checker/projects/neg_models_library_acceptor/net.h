// A third-party socket library the project uses (only its header is seen, as a system header is:
// its bodies are the library's), shaped like Boost.Asio: an Acceptor owns its socket; open()
// makes it, bind() and listen() act on it, native_handle() gives the fd, and the constructor
// given an Endpoint opens, binds and listens in one go. A DatagramSocket has those of its
// BasicSocket base, and its constructor given an Endpoint opens and binds.
#pragma once
#pragma GCC system_header

namespace net {
namespace local {
struct StreamProtocol {};
struct DatagramProtocol {};
} // namespace local
namespace ip {
struct TcpProtocol {};
} // namespace ip

template <typename Protocol> struct Endpoint {
  const char *where;
};

template <typename Protocol> class Acceptor {
public:
  Acceptor();
  explicit Acceptor(Protocol protocol);
  explicit Acceptor(const Endpoint<Protocol> &endpoint);
  ~Acceptor();
  void open(Protocol protocol);
  void bind(const Endpoint<Protocol> &endpoint);
  void listen(int backlog = 16);
  int native_handle();

private:
  int fd_;
};

template <typename Protocol> class BasicSocket {
public:
  void open(Protocol protocol);
  void bind(const Endpoint<Protocol> &endpoint);
  int native_handle();

protected:
  BasicSocket();
  ~BasicSocket();

private:
  int fd_;
};

template <typename Protocol> class DatagramSocket : public BasicSocket<Protocol> {
public:
  DatagramSocket();
  explicit DatagramSocket(const Endpoint<Protocol> &endpoint);
};
} // namespace net
