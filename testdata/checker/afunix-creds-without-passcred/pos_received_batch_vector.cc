// C++: a worker takes connections from its supervisor as a batch of fds in one message, copied
// into a std::vector<int>, and wraps each in a Connection object whose member reads SCM_CREDENTIALS.
// The supervisor's listener never gets SO_PASSCRED: what the worker receives over the socketpair()
// is the connections the supervisor sends on its other end.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <vector>

class Connection {
public:
  explicit Connection(int fd) : fd_(fd) {}
  bool FromRoot() {
    char data[64];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov{data, sizeof data};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(fd_, &msg, 0) <= 0) // EXPECT: afunix-creds-without-passcred EXPECT-MESSAGE: credentials are read from socket 'fd_', which never has SO_PASSCRED
      return false;
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_CREDENTIALS) // EXPECT-NOTE: the credentials are looked for here
      return false;
    ucred cred;
    std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
    return cred.uid == 0;
  }

private:
  int fd_;
};

std::vector<int> ReceiveBatch(int channel) {
  char byte;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 8)];
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(channel, &msg, 0) <= 0)
    return {};
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_RIGHTS)
    return {};
  std::vector<int> fds((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
  std::memcpy(fds.data(), CMSG_DATA(c), fds.size() * sizeof(int));
  return fds;
}

void SendBatch(int channel, const std::vector<int> &fds) {
  char byte = 0;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 8)];
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  sendmsg(channel, &msg, 0);
  recv(channel, &byte, 1, 0);
}

void Worker(int channel) {
  for (;;) {
    for (int fd : ReceiveBatch(channel)) {
      Connection conn(fd);
      if (conn.FromRoot())
        write(fd, "ok", 2);
      close(fd);
    }
    send(channel, "", 1, 0);
  }
}

int main() {
  int pair[2];
  socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair);
  if (fork() == 0) {
    Worker(pair[1]);
    _exit(0);
  }
  int listener = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: listening socket created here
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strcpy(address.sun_path, "/run/supervisor.sock");
  bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address);
  listen(listener, 16);
  for (;;) {
    std::vector<int> batch;
    for (int i = 0; i < 8; ++i)
      batch.push_back(accept(listener, nullptr, nullptr)); // EXPECT-NOTE: accept() here
    SendBatch(pair[0], batch);
    for (int fd : batch)
      close(fd);
  }
}

// The fix-it (on the supervisor's listener before listen()), as --fix applies it:
// EXPECT-FIXED: bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(listener, 16);
