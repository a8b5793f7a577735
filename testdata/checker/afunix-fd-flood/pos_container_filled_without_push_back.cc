// pos_vector_of_fds.cc with the fds put into their container in the other ways C++ offers: a
// braced list given to assign(), a fill constructor's value, a std::array's initialiser. Each
// loop hands out a fresh socketpair end without waiting: each is a flood. The elements are found
// from what the library's declarations take (value_type, initializer_list<value_type>), not from
// a list of method names.
#include <array>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <vector>

static bool SendWithFds(int channel, const int *fds, size_t count) {
  char byte = 'c';
  iovec iov = {&byte, 1};
  char control[CMSG_SPACE(sizeof(int) * 4)];
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(sizeof(int) * count);
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * count);
  memcpy(CMSG_DATA(c), fds, sizeof(int) * count);
  return sendmsg(channel, &msg, 0) >= 0;  // EXPECT-NOTE: sent here
}

void assigned_from_a_braced_list(int broker, int clients) {
  std::vector<int> fds;
  for (int i = 0; i < clients; ++i) {  // EXPECT-NOTE: loop here
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)  // EXPECT-NOTE: socket created here
      return;
    fds.assign({sv[1]});
    SendWithFds(broker, fds.data(), fds.size());  // EXPECT: afunix-fd-flood:5
    close(sv[1]);
  }
}

void filled_by_the_constructor(int broker, int clients) {
  for (int i = 0; i < clients; ++i) {  // EXPECT-NOTE: loop here
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)  // EXPECT-NOTE: socket created here
      return;
    std::vector<int> fds(1, sv[1]);
    SendWithFds(broker, fds.data(), fds.size());  // EXPECT: afunix-fd-flood:5
    close(sv[1]);
  }
}

void in_a_std_array(int broker, int clients) {
  for (int i = 0; i < clients; ++i) {  // EXPECT-NOTE: loop here
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)  // EXPECT-NOTE: socket created here
      return;
    std::array<int, 1> fds{sv[1]};
    SendWithFds(broker, fds.data(), fds.size());  // EXPECT: afunix-fd-flood:5
    close(sv[1]);
  }
}
