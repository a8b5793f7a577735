// mpd's shape: a socket class, a helper that makes a listener of any family and enables
// SO_PASSCRED after listen(), and a server object that accepts into client objects. No client
// reads SCM_CREDENTIALS (they ask SO_PEERCRED, which does not depend on SO_PASSCRED): a client
// that connects in the window loses nothing the program reads, so no finding
// (pos_listener_after_listen_read.cc: the same server reading them).
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

class SocketDescriptor {
public:
  SocketDescriptor() = default;
  explicit SocketDescriptor(int fd) : fd_(fd) {}
  bool Create(int domain, int type) {
    fd_ = socket(domain, type | SOCK_CLOEXEC, 0);
    return fd_ >= 0;
  }
  bool Bind(const sockaddr *address, socklen_t size) { return bind(fd_, address, size) == 0; }
  bool Listen(int backlog) { return listen(fd_, backlog) == 0; }
  bool SetBoolOption(int level, int name, bool value) {
    int v = value;
    return setsockopt(fd_, level, name, &v, sizeof v) == 0;
  }
  SocketDescriptor Accept() { return SocketDescriptor(accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC)); }
  ssize_t Read(void *data, size_t size) { return read(fd_, data, size); }
  bool PeerUid(uid_t &uid) {
    ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd_, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
      return false;
    uid = cred.uid;
    return true;
  }
  int Get() const { return fd_; }

private:
  int fd_ = -1;
};

SocketDescriptor BindListen(int domain, const sockaddr *address, socklen_t size) {
  SocketDescriptor fd;
  if (!fd.Create(domain, SOCK_STREAM) || !fd.Bind(address, size) || !fd.Listen(16))
    return {};
  fd.SetBoolOption(SOL_SOCKET, SO_PASSCRED, true);
  return fd;
}

class Client {
public:
  explicit Client(SocketDescriptor fd) : fd_(fd) {}
  bool Serve() {
    uid_t uid;
    if (!fd_.PeerUid(uid))
      return false;
    char line[256];
    return fd_.Read(line, sizeof line) > 0 && uid == 0;
  }

private:
  SocketDescriptor fd_;
};

class Server {
public:
  bool Open(const std::string &path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    listener_ = BindListen(AF_UNIX, reinterpret_cast<const sockaddr *>(&address), sizeof address);
    return listener_.Get() >= 0;
  }
  void OnReadable() {
    SocketDescriptor fd = listener_.Accept();
    if (fd.Get() < 0)
      return;
    clients_.push_back(std::make_unique<Client>(fd));
    clients_.back()->Serve();
  }

private:
  SocketDescriptor listener_;
  std::vector<std::unique_ptr<Client>> clients_;
};

int main() {
  Server server;
  if (!server.Open("/run/player.sock"))
    return 1;
  for (;;)
    server.OnReadable();
}
