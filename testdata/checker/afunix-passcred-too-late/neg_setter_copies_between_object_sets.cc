// C++: the same pairs carry the control socket into the listener, but SO_PASSCRED is
// enabled on the control socket before the copies, so the listener has it before listen(), and
// the handles the pairs never name keep their own sockets.
#include <sys/socket.h>

struct Handle {
  int fd_ = -1;
  void take(const Handle &other) { fd_ = other.fd_; }
};

struct Pair {
  Handle *to;
  const Handle *from;
};

Handle control, data, spare, listener, unnamed;
Pair first = {&data, &control}, second = {&spare, &data}, third = {&listener, &spare};

void copy_all(Pair *p) { p->to->take(*p->from); }

int serve(void) {
  int one = 1;
  control.fd_ = socket(AF_UNIX, SOCK_STREAM, 0);
  setsockopt(control.fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  copy_all(&first);
  copy_all(&second);
  copy_all(&third);
  listen(listener.fd_, 16);
  unnamed.fd_ = socket(AF_UNIX, SOCK_DGRAM, 0);
  return 0;
}
