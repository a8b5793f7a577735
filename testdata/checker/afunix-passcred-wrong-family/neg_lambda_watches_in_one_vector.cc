// A C++ event loop keeps every watch (fd and std::function) in one vector and calls
// `w.callback(w.fd)`. The AF_UNIX socket's handler enables SO_PASSCRED (again: main() did before
// bind()) on the socket it was registered with; a UDP socket with its own handler is in the same
// vector. The lambda registered with the AF_UNIX socket is handed that socket, not the UDP one
// (EOPNOTSUPP since 6.16), though both are the vector's elements.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <utility>
#include <vector>

class EventLoop {
public:
  void Watch(int fd, std::function<void(int)> callback) { watches_.push_back({fd, std::move(callback)}); }
  void Run() {
    for (;;)
      for (auto &w : watches_)
        w.callback(w.fd);
  }

private:
  struct Entry {
    int fd;
    std::function<void(int)> callback;
  };
  std::vector<Entry> watches_;
};

int main() {
  EventLoop loop;
  int unix_dgram = socket(AF_UNIX, SOCK_DGRAM, 0);
  int one = 1;
  setsockopt(unix_dgram, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, "/run/svc.sock", sizeof addr.sun_path - 1);
  bind(unix_dgram, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
  loop.Watch(unix_dgram, [](int fd) {
    int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    char buf[256];
    (void)recv(fd, buf, sizeof buf, 0);
  });

  int udp = socket(AF_INET, SOCK_DGRAM, 0);
  loop.Watch(udp, [](int fd) {
    char buf[256];
    (void)recv(fd, buf, sizeof buf, 0);
  });
  loop.Run();
}
