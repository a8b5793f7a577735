#include <unistd.h>

#include "ipc/channel.h"

int main() {
  ipc::Channel receiver, sender;
  if (!ipc::Channel::Pair(receiver, sender))
    return 1;
  char data[16] = "hello";
  if (!sender.Send(data, 6))
    return 1;
  return receiver.ReceivePeer(data, sizeof data) == getpid() ? 0 : 1;
}
