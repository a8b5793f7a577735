// As pos_handle_filled_by_swap.cc, but CreatePair() enables SO_PASSCRED on both ends before it
// hands them out, as the crash-reporting client library the shape comes from does: the client's
// read gets the handler's credentials, and the server enables it once more on its own end.
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include <string.h>
#include <string>
#include <utility>
#include <vector>

const int kInvalidFd = -1;

struct CloseTraits {
  static int InvalidValue() { return kInvalidFd; }
  static void Free(int fd) { close(fd); }
};

template <typename T, typename Traits> class ScopedHandle {
  struct Data : Traits {
    explicit Data(const T &in) : generic(in) {}
    Data(const T &in, const Traits &other) : Traits(other), generic(in) {}
    T generic;
  };

public:
  ScopedHandle() : data_(Traits::InvalidValue()) {}
  explicit ScopedHandle(const T &value) : data_(value) {}
  ScopedHandle(ScopedHandle &&rvalue) : data_(rvalue.release(), rvalue.get_traits()) {}
  ~ScopedHandle() { reset(); }
  ScopedHandle &operator=(ScopedHandle &&rvalue) {
    reset(rvalue.release());
    return *this;
  }
  void reset(const T &value = Traits::InvalidValue()) {
    if (data_.generic != Traits::InvalidValue())
      data_.Free(data_.generic);
    data_.generic = value;
  }
  void swap(ScopedHandle &other) {
    using std::swap;
    swap(data_.generic, other.data_.generic);
  }
  T release() {
    T old = data_.generic;
    data_.generic = Traits::InvalidValue();
    return old;
  }
  const T &get() const { return data_.generic; }
  Traits &get_traits() { return data_; }

private:
  Data data_;
};
using ScopedFd = ScopedHandle<int, CloseTraits>;

// Another instantiation of the same template, holding no fd.
struct RemoveTraits {
  static std::string InvalidValue() { return std::string(); }
  static void Free(const std::string &path) { unlink(path.c_str()); }
};
using ScopedRemoveFile = ScopedHandle<std::string, RemoveTraits>;

struct Report {
  std::vector<ScopedRemoveFile> removers;
  void AddAttachment(const std::string &path) { removers.emplace_back(ScopedRemoveFile(path)); }
};

struct CredentialSocket {
  static bool CreatePair(ScopedFd *one, ScopedFd *two) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) 
      return false;
    int on = 1;
    if (setsockopt(fds[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0 ||
        setsockopt(fds[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0) {
      close(fds[0]);
      close(fds[1]);
      return false;
    }
    ScopedFd local_one(fds[0]);
    ScopedFd local_two(fds[1]);
    one->swap(local_one);
    two->swap(local_two);
    return true;
  }
  // False when the message came without credentials.
  static bool Receive(int fd, void *buf, size_t len, ucred *creds) {
    iovec iov = {buf, len};
    char control[CMSG_SPACE(sizeof(ucred))];
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(fd, &msg, 0) < 0) 
      return false;
    bool found = false;
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
        memcpy(creds, CMSG_DATA(c), sizeof *creds);
        found = true;
      }
    if (!found)
      return false;
    return true;
  }
};

class HandlerClient {
public:
  explicit HandlerClient(int sock) : sock_(sock) {}
  bool HandlerCredentials(ucred *creds) {
    char reply;
    return CredentialSocket::Receive(sock_, &reply, 1, creds); 
  }

private:
  int sock_;
};

class Server {
public:
  bool Install(ScopedFd socket) {
    int on = 1;
    if (setsockopt(socket.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0)
      return false;
    sock_ = std::move(socket);
    return true;
  }
  bool ClientIsRoot() {
    char request;
    ucred creds;
    return CredentialSocket::Receive(sock_.get(), &request, 1, &creds) && creds.uid == 0;
  }

private:
  ScopedFd sock_;
};

static bool Connect(ScopedFd sock) {
  HandlerClient client(sock.get());
  ucred creds;
  return client.HandlerCredentials(&creds) && creds.pid > 0;
}

bool StartHandler(Server *server) {
  ScopedFd client_end, handler_end;
  if (!CredentialSocket::CreatePair(&client_end, &handler_end))
    return false;
  if (!server->Install(std::move(handler_end)))
    return false;
  return Connect(std::move(client_end));
}
