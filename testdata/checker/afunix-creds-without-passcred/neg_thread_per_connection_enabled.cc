// pos_thread_per_connection.cc with SO_PASSCRED on the listener before it listens: every
// connection the threads read from inherits it, so the credentials arrive.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <future>
#include <thread>

static bool from_root(int fd) {
  char data[64];
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
  iovec iov{data, sizeof data};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(fd, &msg, 0) <= 0)
    return false;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_CREDENTIALS)
    return false;
  ucred cred;
  std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
  return cred.uid == 0;
}

static int listen_on(const char *path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  if (bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || listen(fd, 16) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static bool audit(int peer) {
  bool ok = from_root(peer);
  close(peer);
  return ok;
}

class Server {
public:
  void Run(const char *path) {
    int listener = listen_on(path);
    for (;;) {
      int peer = accept(listener, nullptr, nullptr);
      if (peer < 0)
        continue;
      std::thread(&Server::Serve, this, peer).detach();
      int copy = dup(peer);
      std::async(std::launch::async, audit, copy).wait();
    }
  }

private:
  void Serve(int peer) {
    if (!from_root(peer))
      close(peer);
  }
};
