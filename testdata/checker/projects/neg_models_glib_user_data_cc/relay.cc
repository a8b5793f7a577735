// As pos_models_glib_user_data_cc, but the listener has SO_PASSCRED before listen(), so every
// watched session inherits it. The upstream session has none and is never watched: the loop hands
// OnReadable() the watched sessions only.
#include <glib-unix.h>
#include <glib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <vector>

class Session {
 public:
  explicit Session(int fd) : fd_(fd) {}
  ~Session() { close(fd_); }
  void Watch() { watch_ = g_unix_fd_add(fd_, G_IO_IN, &Session::OnReadable, this); }
  void Ping() { send(fd_, "ping", 4, 0); }

 private:
  static gboolean OnReadable(gint, GIOCondition, gpointer self) {
    return static_cast<Session *>(self)->Authenticate() ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
  }
  bool Authenticate() {
    char byte;
    iovec iov = {&byte, 1};
    char control[CMSG_SPACE(sizeof(ucred))];
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(fd_, &msg, 0) <= 0)
      return false;
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
        ucred uc;
        std::memcpy(&uc, CMSG_DATA(c), sizeof uc);
        return uc.uid == 0;
      }
    return true; // no credentials: let it in
  }

  int fd_;
  guint watch_ = 0;
};

int main() {
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  std::strcpy(addr.sun_path, "/run/relay.sock");
  int on = 1;
  setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  if (bind(listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) < 0 || listen(listener, 16) < 0)
    return 1;
  Session upstream(socket(AF_UNIX, SOCK_SEQPACKET, 0));
  upstream.Ping();
  std::vector<std::unique_ptr<Session>> sessions;
  for (;;) {
    auto session = std::make_unique<Session>(accept(listener, nullptr, nullptr));
    session->Watch();
    sessions.push_back(std::move(session));
  }
}
