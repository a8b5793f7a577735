// A collector on libuv in C++: each Source owns its socket and a uv_poll_t whose data is the
// Source, and one static member is every Source's callback, registered by the constructor. The log
// socket enables SO_PASSCRED; the audit socket does not, yet its reads take SCM_CREDENTIALS too. The
// callback and Receive() hold both Sources; each construction registers one, and that is where the
// socket without the option comes in.
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <uv.h>

static pid_t last_sender;

class Source {
public:
  Source(uv_loop_t *loop, int fd) : fd_(fd) {
    uv_poll_init(loop, &poll_, fd_);
    poll_.data = this;
    uv_poll_start(&poll_, UV_READABLE, &Source::OnReadable);
  }

private:
  static void OnReadable(uv_poll_t *handle, int, int) { static_cast<Source *>(handle->data)->Receive(); }

  void Receive() {
    char data[256];
    char control[CMSG_SPACE(sizeof(struct ucred))];
    struct iovec iov = {data, sizeof data};
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(fd_, &msg, 0) < 0)
      return;
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
        struct ucred cred;
        std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
        last_sender = cred.pid;
      }
  }

  uv_poll_t poll_;
  int fd_;
};

static int BoundTo(int fd, const char *path) {
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  return bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) < 0 ? -1 : fd;
}

int main() {
  uv_loop_t *loop = uv_default_loop();
  int on = 1;
  int log_socket = socket(AF_UNIX, SOCK_DGRAM, 0);
  setsockopt(log_socket, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  Source log(loop, BoundTo(log_socket, "/run/collector/log"));
  Source audit(loop, BoundTo(socket(AF_UNIX, SOCK_DGRAM, 0), "/run/collector/audit")); // EXPECT: afunix-creds-without-passcred
  return uv_run(loop, UV_RUN_DEFAULT);
}
