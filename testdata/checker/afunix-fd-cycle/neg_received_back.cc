// C++: a socketpair end passed to its own queue and taken back at once (a self-test of the fd
// channel): received before the closes, nothing is left for the GC.
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

class Channel {
public:
  bool selfTest() {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
      return false;
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
    std::memcpy(CMSG_DATA(cmsg), &sv[1], sizeof(int));
    bool ok = sendmsg(sv[0], &msg, 0) == 1;
    msghdr in{};
    alignas(cmsghdr) char back[CMSG_SPACE(sizeof(int))];
    in.msg_iov = &iov;
    in.msg_iovlen = 1;
    in.msg_control = back;
    in.msg_controllen = sizeof back;
    ok = ok && recvmsg(sv[1], &in, 0) == 1;
    if (cmsghdr *got = CMSG_FIRSTHDR(&in)) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(got), sizeof fd);
      close(fd);
    }
    close(sv[0]);
    close(sv[1]);
    return ok;
  }
};
