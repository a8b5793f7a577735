// A project's own view over contiguous fds (as base::span, absl::Span or gsl::span are): a
// `const int *data_` and a size, built from an array or a pointer and a count. The wrapper copies
// view.data() into the control message; loops hand it both ends of a fresh socketpair and read
// no reply, so the fds pile up in flight.
#include <cstddef>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

template <typename T> class View {
public:
  constexpr View(T *data, size_t size) : data_(data), size_(size) {}
  template <size_t N> constexpr View(T (&array)[N]) : data_(array), size_(N) {}
  constexpr T *data() const { return data_; }
  constexpr size_t size_bytes() const { return size_ * sizeof(T); }

private:
  T *data_;
  size_t size_;
};

static bool SendFds(int channel, View<const int> fds) {
  char byte = 0;
  iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(int) * 8)];
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(fds.size_bytes());
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(fds.size_bytes());
  memcpy(CMSG_DATA(c), fds.data(), fds.size_bytes());
  return sendmsg(channel, &msg, 0) == 1; // EXPECT-NOTE: sent here
}

// The view built from the array itself.
void hand_out(int broker) {
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) // EXPECT-NOTE: socket created here
      return;
    int both[2] = {pair[0], pair[1]};
    SendFds(broker, both); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: passing AF_UNIX sockets from 'fds.data()' over 'broker' in a loop (through 'SendFds')
    close(pair[0]);
    close(pair[1]);
  }
}

// The view built from a pointer and a count. (Precision lost: the finding's note names the
// socketpair() above, whose fds reach the same field of the view through the other constructor.)
void hand_out_counted(int broker) {
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0)
      return;
    SendFds(broker, View<const int>(pair, 2)); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: passing AF_UNIX sockets from
    close(pair[0]);
    close(pair[1]);
  }
}
