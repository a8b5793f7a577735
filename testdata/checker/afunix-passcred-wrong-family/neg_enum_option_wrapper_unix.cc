// The enum option wrapper of pos_enum_option_wrapper.cc on an AF_UNIX socket: SO_PASSCRED is
// valid there, and SO_REUSEADDR is not one of the options the rule is about. Nothing is reported.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <string.h>

enum class Opt { kPassCred = SO_PASSCRED, kReuse = SO_REUSEADDR };

class Sock {
public:
  Sock() : fd_(socket(AF_UNIX, SOCK_STREAM, 0)) {}
  bool Set(Opt o, bool on) { int v = on; return setsockopt(fd_, SOL_SOCKET, static_cast<int>(o), &v, sizeof v) == 0; }
private:
  int fd_;
};

struct Config { Opt option; };
static const Config kConfig = {Opt::kPassCred};

int main() {
  Sock s;
  s.Set(Opt::kReuse, true);
  s.Set(kConfig.option, true);
}
