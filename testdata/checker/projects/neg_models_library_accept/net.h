// A third-party socket library the project uses (only its header is seen, as a system header is),
// shaped like Boost.Asio: an Acceptor's constructor given an Endpoint opens, binds and listens;
// accept(peer) accepts a connection into the StreamSocket it is handed, the accept() without
// an argument returns one, async_accept(handler) hands one to the handler when a client
// connects, and co_await async_accept(UseAwaitable{}) resumes with one. A socket's
// async_wait(handler) calls the handler when it is readable. native_handle() gives an object's fd.
#pragma once
#pragma GCC system_header

#if __cplusplus >= 202002L // the coroutine API (the project builds with -std=c++20)
#include <coroutine>
#endif

namespace net {
namespace local {
struct StreamProtocol {};
} // namespace local

template <typename Protocol> struct Endpoint {
  const char *where;
};

#if __cplusplus >= 202002L
// What a coroutine awaits, and what it returns (it runs until its first wait).
struct UseAwaitable {};
template <typename T> struct Awaitable {
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<>) noexcept {}
  T await_resume();
};
struct Task {
  struct promise_type {
    Task get_return_object() { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() {}
    void unhandled_exception() {}
  };
};
#endif

template <typename Protocol> class StreamSocket {
public:
  StreamSocket();
  StreamSocket(StreamSocket &&other);
  ~StreamSocket();
  template <typename Handler> void async_wait(Handler handler) { pending_ = &handler; }
  int native_handle();

private:
  int fd_;
  void *pending_;
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
#if __cplusplus >= 202002L
  Awaitable<StreamSocket<Protocol>> async_accept(UseAwaitable);
#endif
  int native_handle();

private:
  int fd_;
  void *pending_;
};
} // namespace net
