// C++: the socket is a member (this->fd_), the credential check lives in a helper taking the
// cmsghdr. SO_PASSCRED is set on another member that is a different socket.
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static bool is_credentials(const cmsghdr *c) {
  return c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS;
}

class Channel {
public:
  bool open() {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0) // EXPECT-NOTE: socket created here
      return false;
    this->fd_ = sv[0];
    this->peer_ = sv[1];
    int one = 1;
    ::setsockopt(peer_, SOL_SOCKET, SO_PASSCRED, &one, sizeof one);
    return true;
  }

  bool authenticated() {
    char data[16];
    char control[64];
    iovec iov = {data, sizeof data};
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (::recvmsg(this->fd_, &msg, 0) < 0) // EXPECT: afunix-creds-without-passcred
      return false;
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (is_credentials(c))
        return true;
    return false;
  }

private:
  int fd_ = -1;
  int peer_ = -1;
};

bool check_channel() {
  Channel channel;
  return channel.open() && channel.authenticated();
}

// The fix-it, as --fix applies it:
// EXPECT-FIXED: return false;
// EXPECT-FIXED: { int afunix_on = 1; setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &afunix_on, sizeof afunix_on); }
// EXPECT-FIXED: this->fd_ = sv[0];
