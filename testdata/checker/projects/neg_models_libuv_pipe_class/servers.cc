// Two servers of one C++ class around a libuv pipe. The class's constructor has libuv make and bind
// the socket (uv_pipe_bind()); Listen() and EnableCredentials() act on that object's own handle.
// Both servers enable SO_PASSCRED before they listen, so every client inherits it. Read per type,
// the control server listening before the events server enables it would look late.
#include <sys/socket.h>
#include <uv.h>

class PipeServer {
public:
  PipeServer(uv_loop_t *loop, const char *path) {
    uv_pipe_init(loop, &pipe_, 0);
    bound_ = uv_pipe_bind(&pipe_, path) == 0;
  }
  int Listen(uv_connection_cb on_connection) {
    return bound_ ? uv_listen(reinterpret_cast<uv_stream_t *>(&pipe_), 16, on_connection) : -1;
  }
  int EnableCredentials() {
    uv_os_fd_t fd;
    if (uv_fileno(reinterpret_cast<const uv_handle_t *>(&pipe_), &fd) != 0)
      return -1;
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  }

private:
  uv_pipe_t pipe_;
  bool bound_ = false;
};

static void on_control(uv_stream_t *, int) {}
static void on_event(uv_stream_t *, int) {}

int main() {
  uv_loop_t *loop = uv_default_loop();
  PipeServer control(loop, "/run/broker/control");
  if (control.EnableCredentials() != 0 || control.Listen(on_control) != 0)
    return 1;
  PipeServer events(loop, "/run/broker/events");
  if (events.EnableCredentials() != 0 || events.Listen(on_event) != 0)
    return 1;
  return uv_run(loop, UV_RUN_DEFAULT);
}
