// C++: the listener is a member (listen_fd_) set up in one method, each connection gets
// SO_PASSCRED through a wrapper in another: too late for what the client sent first.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int set_bool_option(int fd, int level, int name, bool value) {
  int v = value ? 1 : 0;
  return ::setsockopt(fd, level, name, &v, sizeof v);
}

class Server {
public:
  bool start() {
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0); // EXPECT-NOTE: listening socket created here
    return listen_fd_ >= 0 && ::listen(listen_fd_, 64) == 0;
  }

  int next_client() {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC); // EXPECT-NOTE: accept() here
    if (fd >= 0)
      set_bool_option(fd, SOL_SOCKET, SO_PASSCRED, true); // EXPECT: afunix-passcred-too-late
    return fd;
  }

private:
  int listen_fd_ = -1;
};

int run_server() {
  Server s;
  return s.start() ? s.next_client() : -1;
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(listen_fd_, SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: return listen_fd_ >= 0 && ::listen(listen_fd_, 64) == 0;
