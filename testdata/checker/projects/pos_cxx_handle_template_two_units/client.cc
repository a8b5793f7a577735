// A socketpair is put into two ScopedFd out-parameters by swap(); the handler's end is moved into
// a Server, which enables SO_PASSCRED on it, and the client's end is moved into a function that
// reads the handler's credentials through a HandlerClient. The client's end never gets it.
#include <sys/socket.h>
#include <sys/types.h>
#include <string.h>

#include "scoped_handle.h"

struct CredentialSocket {
  static bool CreatePair(ScopedFd *one, ScopedFd *two) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) // EXPECT-NOTE: socket created here
      return false;
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
    if (recvmsg(fd, &msg, 0) < 0) // EXPECT-NOTE: credentials are read here
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
    return CredentialSocket::Receive(sock_, &reply, 1, creds); // EXPECT: afunix-creds-without-passcred:12
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

// The fix-it, as --fix applies it: the client's end, right after socketpair().
// EXPECT-FIXED: return false;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(fds[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
