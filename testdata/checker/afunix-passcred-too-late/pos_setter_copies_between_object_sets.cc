// C++: a registry hands sockets between handles through pairs of them; one copy_all() copies
// whichever handle a pair names into another. Through the pairs, the listener's socket reaches
// every handle the pairs name, the one that listens among them, and SO_PASSCRED comes after
// listen(). (Per call, the copy goes from every object `from` may point to into every object `to`
// may point to, which the analysis joins in one place of the call.)
#include <sys/socket.h>

struct Handle {
  int fd_ = -1;
  void take(const Handle &other) { fd_ = other.fd_; }
};

struct Pair {
  Handle *to;
  const Handle *from;
};

Handle control, data, spare, listener;
Pair first = {&data, &control}, second = {&spare, &data}, third = {&listener, &spare};

void copy_all(Pair *p) { p->to->take(*p->from); }

int serve(void) {
  int one = 1;
  control.fd_ = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: socket created here
  copy_all(&first);
  copy_all(&second);
  copy_all(&third);
  listen(listener.fd_, 16); // EXPECT-NOTE: listen() here
  setsockopt(listener.fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: SO_PASSCRED is enabled on listener 'listener.fd_' after listen()
  return 0;
}

// The fix-it, as --fix applies it: the option moves before listen().
// EXPECT-FIXED:   setsockopt(listener.fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
// EXPECT-FIXED:   listen(listener.fd_, 16); // EXPECT-NOTE: listen() here
