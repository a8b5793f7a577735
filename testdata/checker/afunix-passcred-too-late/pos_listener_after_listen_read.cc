// neg_listener_after_listen_unread.cc, but each client reads the credentials of the first
// message (a member that calls recvmsg() and looks at SCM_CREDENTIALS): a client that connects
// between listen() and SO_PASSCRED gets none, so the finding stays. The listener reaches the
// server's member through the assignment the compiler writes (listener_ = BindListen(...)).
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
  bool SenderUid(uid_t &uid) {
    char data[256];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov{data, sizeof data};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(fd_, &msg, 0) <= 0)
      return false;
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_CREDENTIALS)
      return false;
    ucred cred;
    std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
    uid = cred.uid;
    return true;
  }
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
  if (!fd.Create(domain, SOCK_STREAM) || !fd.Bind(address, size) || !fd.Listen(16)) // EXPECT-NOTE: the socket listens from this call
    return {};
  fd.SetBoolOption(SOL_SOCKET, SO_PASSCRED, true); // EXPECT: afunix-passcred-too-late:3 EXPECT-MESSAGE: after listen(), before any accept()
  return fd;
}

class Client {
public:
  explicit Client(SocketDescriptor fd) : fd_(fd) {}
  bool Serve() {
    uid_t uid;
    return fd_.SenderUid(uid) && uid == 0;
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

// The fix-it (enable it right before the only listen(), in the class's Listen()), as --fix
// applies it:
// EXPECT-FIXED: bool Listen(int backlog) { { int afunix_on = 1; setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: return listen(fd_, backlog) == 0; }
