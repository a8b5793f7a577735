// A session takes its transport by value (std::unique_ptr<Transport>) and moves it into a member;
// the virtual Receive() of the Unix transport reads SCM_CREDENTIALS from the connected socket,
// which never has SO_PASSCRED. The constructor stores its by-value parameter per call: what the
// caller built (Connect()'s heap transport) is what the member holds.
#include <memory>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <string.h>

class Transport {
public:
  virtual ~Transport() = default;
  virtual bool ReceiveFromRoot() = 0;
};

class UnixTransport : public Transport {
public:
  explicit UnixTransport(int fd) : fd_(fd) {}
  ~UnixTransport() override { close(fd_); }
  bool ReceiveFromRoot() override {
    char buf[64];
    char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov = {buf, sizeof buf};
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(fd_, &msg, 0) <= 0) // EXPECT: afunix-creds-without-passcred:9
      return false;
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) { // EXPECT-NOTE: the credentials are looked for here
        ucred cred;
        memcpy(&cred, CMSG_DATA(c), sizeof cred);
        return cred.uid == 0;
      }
    return false;
  }

private:
  int fd_;
};

class Session {
public:
  explicit Session(std::unique_ptr<Transport> transport) : transport_(std::move(transport)) {}
  bool ServerIsRoot() { return transport_ && transport_->ReceiveFromRoot(); }

private:
  std::unique_ptr<Transport> transport_;
};

static std::unique_ptr<Transport> Connect(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: socket created here
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
    close(fd);
    return nullptr;
  }
  return std::make_unique<UnixTransport>(fd);
}

int main() {
  Session session(Connect("/run/example.sock"));
  return session.ServerIsRoot() ? 0 : 1;
}

// The fix-it, as --fix applies it: before connect().
// EXPECT-FIXED: strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
