// A socket class template takes its family as a template argument: Socket<AF_UNIX> and
// Socket<AF_INET6> are two instantiations of one constructor's socket(Family, ...). Only the
// AF_UNIX one enables SO_PASSCRED. The instantiations share one function, so the family of that
// socket() is unknown to the analysis, and nothing is reported; before, the first instantiation
// seen (here AF_INET6) stood for both, and the AF_UNIX call was reported.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

template <int Family>
class Socket {
public:
  Socket() : fd_(::socket(Family, SOCK_DGRAM, 0)) {}
  ~Socket() { ::close(fd_); }
  bool EnableCredentials() {
    int on = 1;
    return ::setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == 0;
  }

private:
  int fd_;
};

void probe_network() {
  Socket<AF_INET6> net;
  (void)net;
}

int main() {
  Socket<AF_UNIX> local;
  local.EnableCredentials();
}
