// A collector on libuv in C++: each Source owns its socket and a uv_poll_t whose data is the
// Source, and is handed the callback to register. The log socket enables SO_PASSCRED and is polled
// by OnCredentials(), which reads SCM_CREDENTIALS; the audit socket does not, and is polled by
// OnData(), which only drains it. No Source that reads credentials lacks the option.
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <uv.h>

static pid_t last_sender;

class Source {
public:
  Source(uv_loop_t *loop, int fd, uv_poll_cb on_readable) : fd_(fd) {
    uv_poll_init(loop, &poll_, fd_);
    poll_.data = this;
    uv_poll_start(&poll_, UV_READABLE, on_readable);
  }

  static void OnCredentials(uv_poll_t *handle, int, int) { static_cast<Source *>(handle->data)->Receive(); }
  static void OnData(uv_poll_t *handle, int, int) { static_cast<Source *>(handle->data)->Drain(); }

private:
  void Drain() {
    char data[256];
    while (read(fd_, data, sizeof data) > 0) {
    }
  }

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
  Source log(loop, BoundTo(log_socket, "/run/collector/log"), &Source::OnCredentials);
  Source audit(loop, BoundTo(socket(AF_UNIX, SOCK_DGRAM, 0), "/run/collector/audit"), &Source::OnData);
  return uv_run(loop, UV_RUN_DEFAULT);
}
