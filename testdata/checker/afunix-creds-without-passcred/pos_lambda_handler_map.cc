// A C++ event loop keeps a std::function per fd in a std::map and calls handlers_[fd](). The
// listener's handler, a lambda, accepts and registers a second lambda that captures the accepted
// fd and reads its credentials. The listener never gets SO_PASSCRED: the socket is followed
// through both captures and the map of callables, and named after the lambda that accepted it.
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <string.h>
#include <functional>
#include <map>

static int peer_uid(int fd) {
  char buf[16];
  iovec iov = {buf, sizeof buf};
  char control[CMSG_SPACE(sizeof(ucred))];
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(fd, &msg, 0) < 0) return -1; // EXPECT-NOTE: credentials are read here
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (c && c->cmsg_type == SCM_CREDENTIALS) return (int)((ucred *)CMSG_DATA(c))->uid;
  return 0;
}

class Loop {
public:
  void Add(int fd, std::function<void()> fn) {
    handlers_[fd] = std::move(fn);
    epoll_event ev = {};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev);
  }
  void Run() {
    epoll_event ev[8];
    for (;;) {
      int n = epoll_wait(ep_, ev, 8, -1);
      for (int i = 0; i < n; i++) handlers_[ev[i].data.fd]();
    }
  }
private:
  int ep_ = epoll_create1(0);
  std::map<int, std::function<void()>> handlers_;
};

int main() {
  Loop loop;
  int l = socket(AF_UNIX, SOCK_STREAM, 0); // EXPECT-NOTE: listening socket created here
  sockaddr_un a = {};
  a.sun_family = AF_UNIX;
  strcpy(a.sun_path, "/run/t.sock");
  bind(l, (sockaddr *)&a, sizeof a);
  listen(l, 8);
  loop.Add(l, [&loop, l] {
    int c = accept(l, nullptr, nullptr);
    loop.Add(c, [c] { if (peer_uid(c) != 0) close(c); }); // EXPECT: afunix-creds-without-passcred:27 EXPECT-MESSAGE: the socket passed here (accept() in a lambda in main()) never has SO_PASSCRED
  });
  loop.Run();
}

// The fix-it, as --fix applies it: before the listener's listen().
// EXPECT-FIXED: bind(l, (sockaddr *)&a, sizeof a);
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(l, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: listen(l, 8);
