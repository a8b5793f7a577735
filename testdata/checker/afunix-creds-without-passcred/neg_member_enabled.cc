// C++: SO_PASSCRED on the member socket (this->fd_) in the constructor, read in a method.
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

class Receiver {
public:
  Receiver() : fd_(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
    int one = 1;
    ::setsockopt(this->fd_, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one));
  }
  ~Receiver() { ::close(fd_); }

  int uid() {
    char data[16];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(ucred))];
    iovec iov = {data, sizeof data};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (::recvmsg(fd_, &msg, 0) < 0)
      return -1;
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_CREDENTIALS)
      return -1;
    ucred uc;
    memcpy(&uc, CMSG_DATA(c), sizeof uc);
    return static_cast<int>(uc.uid);
  }

private:
  int fd_;
};

int receiver_uid() {
  Receiver r;
  return r.uid();
}
