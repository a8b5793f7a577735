// A C++ channel queues messages (bytes and a std::vector<int> of fds) in a std::deque and a
// Flush() loop sends them later: the queue/flush shape of messaging libraries, with the fds in a
// member container of a queued object. A loop queues a fresh socketpair end on every turn and no
// reply is read: the fds pile up in flight. The finding is at the queuing call in the loop, for
// a channel taking the fds by value (moved into the message) and one taking them by reference.
// ARGS: -std=c++20
#include <deque>
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
    while (!queue_.empty()) { // EXPECT-NOTE: every queued message sent in this loop, none waited for
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
      if (sendmsg(fd_, &msg, 0) < 0) // EXPECT-NOTE: queued fds sent here by Channel::Flush()
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
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0) // EXPECT-NOTE: socket created here
      return;
    ch.Send({'x'}, {pair[0]}); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: queued in a loop (with 'Channel::Send', sent by 'Channel::Flush')
    close(pair[1]);
    ch.Flush();
  }
}

void hand_out_copies(Channel &ch) {
  std::vector<int> fds(1);
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) < 0)
      return;
    fds[0] = pair[0];
    ch.SendCopy({'x'}, fds); // EXPECT: afunix-fd-flood:5 EXPECT-MESSAGE: queued in a loop (with 'Channel::SendCopy', sent by 'Channel::Flush')
    close(pair[1]);
    ch.Flush();
  }
}
