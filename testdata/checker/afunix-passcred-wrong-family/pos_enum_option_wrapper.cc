// A socket class's Set(Opt, bool) takes the option as a project enum whose enumerators are the
// socket constants (enum class Opt { kPassCred = SO_PASSCRED, ... }) and casts it for
// setsockopt(). The socket is AF_INET6: SO_PASSCRED through that wrapper fails with EOPNOTSUPP
// since 6.16, whether the caller names the enumerator or a constant configuration holding it.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <string.h>

enum class Opt { kPassCred = SO_PASSCRED, kReuse = SO_REUSEADDR };

class Sock {
public:
  Sock() : fd_(socket(AF_INET6, SOCK_STREAM, 0)) {}
  bool Set(Opt o, bool on) { int v = on; return setsockopt(fd_, SOL_SOCKET, static_cast<int>(o), &v, sizeof v) == 0; }
private:
  int fd_;
};

struct Config { Opt option; };
static const Config kConfig = {Opt::kPassCred};

int main() {
  Sock s;
  s.Set(Opt::kReuse, true);
  s.Set(kConfig.option, true); // EXPECT: afunix-passcred-wrong-family:3 EXPECT-MESSAGE: SO_PASSCRED on socket 'fd_' created with AF_INET6
}
