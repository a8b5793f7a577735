#pragma once

// PassCredentials=yes: the service reads SCM_CREDENTIALS on the socket.
int options_pass_credentials(int fd);
