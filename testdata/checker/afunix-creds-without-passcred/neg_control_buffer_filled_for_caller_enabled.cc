// As pos_control_buffer_filled_for_caller.cc, with SO_PASSCRED on the channel's socket before
// anything is written to its peer: the credentials Message::SenderPid() looks for arrive.
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstring>

class Message {
 public:
  char control[CMSG_SPACE(sizeof(struct ucred))];
  size_t control_size = 0;
  char byte = 0;

  pid_t SenderPid() const {
    struct msghdr msg {};
    msg.msg_control = const_cast<char *>(control);
    msg.msg_controllen = control_size;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
        struct ucred uc;
        std::memcpy(&uc, CMSG_DATA(c), sizeof uc);
        return uc.pid;
      }
    return 0;
  }
};

class Channel {
 public:
  explicit Channel(int fd) : fd_(fd) {}
  ~Channel() { close(fd_); }

  ssize_t Receive(Message *m) {
    struct iovec iov = {&m->byte, 1};
    struct msghdr msg {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = m->control;
    msg.msg_controllen = sizeof m->control;
    ssize_t n = recvmsg(fd_, &msg, 0);
    m->control_size = n > 0 ? msg.msg_controllen : 0;
    return n;
  }

 private:
  int fd_;
};

int main() {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0)
    return 1;
  int on = 1;
  setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
  Channel channel(sv[0]);
  write(sv[1], "x", 1);
  Message m;
  if (channel.Receive(&m) <= 0)
    return 1;
  return m.SenderPid() == getppid() ? 0 : 1;
}
