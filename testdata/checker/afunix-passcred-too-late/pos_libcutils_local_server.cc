// An Android service's datagram socket from libcutils' socket_local_server() (the built-in model
// catalog, models/sockets.yaml), which binds it before it returns: SO_PASSCRED enabled on it
// afterwards is late, and no statement of the program can move before the bind.
#include <sys/socket.h>

// <cutils/sockets.h>, as the NDK and AOSP declare it.
extern "C" int socket_local_server(const char *name, int namespaceId, int type);
#define ANDROID_SOCKET_NAMESPACE_RESERVED 1

class EventSocket {
public:
  bool Open() {
    fd_ = socket_local_server("events", ANDROID_SOCKET_NAMESPACE_RESERVED, SOCK_DGRAM); // EXPECT-NOTE: socket created by socket_local_server(), which binds it before returning
    if (fd_ < 0)
      return false;
    int on = 1;
    return setsockopt(fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == 0; // EXPECT: afunix-passcred-too-late EXPECT-MESSAGE: datagram socket 'fd_' after bind()
  }
  int fd() const { return fd_; }

private:
  int fd_ = -1;
};
