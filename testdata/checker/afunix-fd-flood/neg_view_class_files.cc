// The view class of pos_view_class.cc, handed two regular files per turn: files are never
// AF_UNIX sockets, so nothing is reported.
#include <cstddef>
#include <fcntl.h>
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
  return sendmsg(channel, &msg, 0) == 1;
}

// The view built from the array itself.
void hand_out(int broker) {
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if ((pair[0] = open("/dev/null", O_RDONLY)) < 0 || (pair[1] = open("/dev/null", O_RDONLY)) < 0)
      return;
    int both[2] = {pair[0], pair[1]};
    SendFds(broker, both);
    close(pair[0]);
    close(pair[1]);
  }
}

// The view built from a pointer and a count.
void hand_out_counted(int broker) {
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if ((pair[0] = open("/dev/null", O_RDONLY)) < 0 || (pair[1] = open("/dev/null", O_RDONLY)) < 0)
      return;
    SendFds(broker, View<const int>(pair, 2));
    close(pair[0]);
    close(pair[1]);
  }
}
