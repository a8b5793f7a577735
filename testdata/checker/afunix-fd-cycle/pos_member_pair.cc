// C++: a class holds both ends of a socketpair() in a member array and sends end 0 over end 1.
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

class Loopback {
public:
  bool open() {
    return socketpair(AF_UNIX, SOCK_STREAM, 0, ends_) == 0; // EXPECT-NOTE: socket created here
  }

  bool shareSelf() {
    char byte = 0;
    alignas(cmsghdr) char buf[CMSG_SPACE(sizeof(int))];
    iovec iov{};
    iov.iov_base = &byte;
    iov.iov_len = 1;
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = buf;
    msg.msg_controllen = sizeof buf;
    cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(cmsg), &ends_[0], sizeof(int));
    return sendmsg(ends_[1], &msg, 0) == 1; // EXPECT: afunix-fd-cycle
  }

private:
  int ends_[2] = {-1, -1};
};
