// pos_template_option_argument.cc's template on an AF_UNIX socket: SO_PASSCRED is valid there,
// and the SO_REUSEADDR instantiation of the same template on the TCP socket names no
// credentials option.
#include <sys/socket.h>
#include <unistd.h>

template <int Option> static bool SetBool(int fd, bool on) {
  int v = on;
  return setsockopt(fd, SOL_SOCKET, Option, &v, sizeof v) == 0;
}

class UnixSocket {
public:
  UnixSocket() : fd_(socket(AF_UNIX, SOCK_STREAM, 0)) {}
  template <int Option> bool SetBool(bool on) {
    int v = on;
    return setsockopt(fd_, SOL_SOCKET, Option, &v, sizeof v) == 0;
  }
private:
  int fd_;
};

int main() {
  int local = socket(AF_UNIX, SOCK_STREAM, 0);
  SetBool<SO_PASSCRED>(local, true);
  int tcp = socket(AF_INET6, SOCK_STREAM, 0);
  SetBool<SO_REUSEADDR>(tcp, true);
  UnixSocket u;
  u.SetBool<SO_PASSCRED>(true);
}
