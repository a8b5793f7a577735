#pragma once
#define CONTROL_SOCKET "/run/pairctl.sock"
int serve_forever(void);
int client_command(const char *command);
