#include <stdio.h>

#include "pool.h"
#include "usage.h"

// No socket word in this file: the prefilter parses it because it calls hand_out_pair(), which
// the facts of fdpass.c say sends a socket.
int main(int argc, char **argv) {
  if (argc < 3)
    return usage(argv[0]);
  int channel = open_channel(argv[1]);
  int clients = 0;
  sscanf(argv[2], "%d", &clients);
  for (int i = 0; i < clients; i++) // EXPECT-NOTE: loop here
    if (hand_out_pair(channel) < 0) // EXPECT: afunix-fd-flood:9 EXPECT-MESSAGE: in a loop (through 'hand_out_pair')
      return 1;
  return 0;
}
