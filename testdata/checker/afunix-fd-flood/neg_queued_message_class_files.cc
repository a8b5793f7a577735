// The channel of pos_queued_message_class.cc, handed regular files instead of socketpair ends:
// files are never AF_UNIX sockets, so no garbage-collector wait applies and nothing is reported.
// ARGS: -std=c++20
#include <deque>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <utility>
#include <vector>

struct Message {
  std::vector<char> data;
  std::vector<int> fds;
};

class Channel {
public:
  explicit Channel(int fd) : fd_(fd) {}
  void Send(std::vector<char> data, std::vector<int> fds) {
    queue_.push_back(Message{std::move(data), std::move(fds)});
  }
  void SendCopy(const std::vector<char> &data, const std::vector<int> &fds) { queue_.push_back(Message{data, fds}); }
  void Flush() {
    while (!queue_.empty()) {
      Message &m = queue_.front();
      iovec iov = {m.data.data(), m.data.size()};
      char control[CMSG_SPACE(sizeof(int) * 4)];
      msghdr msg = {};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = CMSG_SPACE(sizeof(int) * m.fds.size());
      cmsghdr *c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int) * m.fds.size());
      memcpy(CMSG_DATA(c), m.fds.data(), sizeof(int) * m.fds.size());
      if (sendmsg(fd_, &msg, 0) < 0)
        return;
      for (int f : m.fds)
        close(f);
      queue_.pop_front();
    }
  }

private:
  int fd_;
  std::deque<Message> queue_;
};

void hand_out(Channel &ch) {
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if ((pair[0] = open("/dev/null", O_RDONLY)) < 0 || (pair[1] = open("/dev/null", O_RDONLY)) < 0)
      return;
    ch.Send({'x'}, {pair[0]});
    close(pair[1]);
    ch.Flush();
  }
}

void hand_out_copies(Channel &ch) {
  std::vector<int> fds(1);
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if ((pair[0] = open("/dev/null", O_RDONLY)) < 0 || (pair[1] = open("/dev/null", O_RDONLY)) < 0)
      return;
    fds[0] = pair[0];
    ch.SendCopy({'x'}, fds);
    close(pair[1]);
    ch.Flush();
  }
}
