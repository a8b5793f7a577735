// An event loop class keeps std::function callbacks by fd and polls them; the server registers
// its listener with a lambda that calls a member, which accepts and enables SO_PASSCRED on the
// accepted socket only then.
#include <functional>
#include <map>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

class EventLoop {
public:
  void Watch(int fd, std::function<void(int)> callback) { callbacks_[fd] = std::move(callback); }
  void Run() {
    for (;;) {
      std::vector<pollfd> ready;
      for (auto &[fd, callback] : callbacks_) {
        pollfd p = {};
        p.fd = fd;
        p.events = POLLIN;
        ready.push_back(p);
      }
      if (poll(ready.data(), ready.size(), -1) <= 0)
        continue;
      for (const pollfd &p : ready)
        if (p.revents & POLLIN)
          callbacks_[p.fd](p.fd);
    }
  }

private:
  std::map<int, std::function<void(int)>> callbacks_;
};

class Server {
public:
  explicit Server(EventLoop &loop) : loop_(loop) {}
  bool Start(const char *path) {
    listener_ = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: listening socket created here
    sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
    if (bind(listener_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) < 0 || listen(listener_, 8) < 0)
      return false;
    loop_.Watch(listener_, [this](int fd) { OnConnection(fd); });
    return true;
  }

private:
  void OnConnection(int fd) {
    int client = accept(fd, nullptr, nullptr); // EXPECT-NOTE: accept() here
    int one = 1;
    setsockopt(client, SOL_SOCKET, SO_PASSCRED, &one, sizeof one); // EXPECT: afunix-passcred-too-late:5
  }
  EventLoop &loop_;
  int listener_ = -1;
};

int main() {
  EventLoop loop;
  Server server(loop);
  if (!server.Start("/run/lambda.sock"))
    return 1;
  loop.Run();
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listener_, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
