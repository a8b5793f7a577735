// The sender interface of pos_virtual_sender.cc, handed a regular file on every turn: files are
// never AF_UNIX sockets, so nothing is reported.
#include <sys/socket.h>
#include <unistd.h>
#include <string.h>
#include <fcntl.h>
#include <memory>
#include <vector>

class Sender {
public:
  virtual ~Sender() = default;
  virtual bool Send(const std::vector<int> &fds) = 0;
};

class UnixSender : public Sender {
public:
  explicit UnixSender(int fd) : fd_(fd) {}
  bool Send(const std::vector<int> &fds) override {
    char byte = 0;
    iovec iov = {&byte, 1};
    char control[CMSG_SPACE(sizeof(int) * 4)];
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    return sendmsg(fd_, &msg, 0) == 1;
  }
private:
  int fd_;
};

std::unique_ptr<Sender> MakeSender(int fd) { return std::make_unique<UnixSender>(fd); }

int main() {
  int sv[2];
  socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
  std::unique_ptr<Sender> s = MakeSender(sv[0]);
  for (int i = 0; i < 100000; i++) {
    int pair[2];
    pair[0] = open("/dev/null", O_RDONLY);
    pair[1] = open("/dev/null", O_RDONLY);
    s->Send({pair[0]});
    close(pair[0]);
    close(pair[1]);
  }
}
