// A helper, and a socket class's member, enable options through a template whose option is a
// template argument (SetBool<SO_PASSCRED>(fd, true), s.SetBool<SO_PASSCRED>(true)). The sockets
// are AF_INET6: SO_PASSCRED fails with EOPNOTSUPP since 6.16. The call names the option, so it
// is the call that sets it, on the parameter or the member the template's setsockopt() is given;
// SO_REUSEADDR through the same templates is nothing to report.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

template <int Option> static bool SetBool(int fd, bool on) {
  int v = on;
  return setsockopt(fd, SOL_SOCKET, Option, &v, sizeof v) == 0;
}

class TcpSocket {
public:
  TcpSocket() : fd_(socket(AF_INET6, SOCK_STREAM, 0)) {}
  template <int Option> bool SetBool(bool on) {
    int v = on;
    return setsockopt(fd_, SOL_SOCKET, Option, &v, sizeof v) == 0;
  }
private:
  int fd_;
};

int main() {
  int fd = socket(AF_INET6, SOCK_STREAM, 0);
  SetBool<SO_REUSEADDR>(fd, true);
  SetBool<SO_PASSCRED>(fd, true); // EXPECT: afunix-passcred-wrong-family:3 EXPECT-MESSAGE: SO_PASSCRED on socket 'fd' created with AF_INET6
  TcpSocket s;
  s.SetBool<SO_REUSEADDR>(true);
  s.SetBool<SO_PASSCRED>(true); // EXPECT: afunix-passcred-wrong-family:3 EXPECT-MESSAGE: SO_PASSCRED on socket 's' created with AF_INET6
}
