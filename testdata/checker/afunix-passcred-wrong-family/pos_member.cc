// C++: a TCP acceptor stores its socket in a member and turns on SO_PASSCRED through a wrapper;
// the accepted connections inherit the listener's family.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int set_int_option(int fd, int level, int name, int value) {
  return ::setsockopt(fd, level, name, &value, sizeof value);
}

class TcpAcceptor {
public:
  bool open() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0); // EXPECT-NOTE: listening socket created here
    return fd_ >= 0 && ::listen(fd_, 16) == 0;
  }
  int next() {
    int conn = ::accept(this->fd_, nullptr, nullptr); // EXPECT-NOTE: accept() here
    set_int_option(conn, SOL_SOCKET, SO_PASSCRED, 1); // EXPECT: afunix-passcred-wrong-family
    return conn;
  }

private:
  int fd_ = -1;
};

int accept_one() {
  TcpAcceptor acceptor;
  return acceptor.open() ? acceptor.next() : -1;
}
