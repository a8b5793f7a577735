// C++: a datagram endpoint bound to its address sends its own socket there (msg_name set by
// assignment): it lands on its own receive queue.
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

class Endpoint {
public:
  bool open() {
    fd_ = socket(AF_UNIX, SOCK_DGRAM, 0); // EXPECT-NOTE: socket created here
    return fd_ >= 0;
  }

  bool announceSelf() {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strcpy(addr.sun_path, "/run/afunix-testdata/endpoint.sock");
    if (bind(fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0)
      return false;
    char byte = 0;
    alignas(cmsghdr) char buf[CMSG_SPACE(sizeof(int))];
    iovec iov{};
    iov.iov_base = &byte;
    iov.iov_len = 1;
    msghdr msg{};
    msg.msg_name = &addr;
    msg.msg_namelen = sizeof addr;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = buf;
    msg.msg_controllen = sizeof buf;
    cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(cmsg), &fd_, sizeof(int));
    return sendmsg(fd_, &msg, 0) == 1; // EXPECT: afunix-fd-cycle
  }

private:
  int fd_ = -1;
};
