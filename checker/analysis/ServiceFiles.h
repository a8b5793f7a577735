// Sockets configured outside C: systemd socket units and Android init .rc files, read into facts
// (facts::ServiceSocket) so the link can match them with the code that takes the socket
// (sd_listen_fds(), SD_LISTEN_FDS_START, android_get_control_socket()) and the rules can judge
// with what the service manager does before the program runs. docs/facts-format.md describes the
// facts; docs/guide-cli.md how the files are found.
#pragma once

#include "Facts.h"

#include <string>
#include <vector>

namespace afunix::analysis {

// Whether `path` is a file this reader understands, by its name: *.socket (and the *.socket.in
// templates of meson and autotools) and *.rc.
bool isServiceFileName(const std::string &path);

// The facts of one service file (an absolute path): for a socket unit, its drop-ins
// (<unit>.d/*.conf beside it) and the service it starts (Service=, or the unit of the same name)
// are read too. Returns false with `error` when the file cannot be read; a file with no socket
// in it gives a unit with no services. Lines the reader does not understand are skipped, as the
// service managers skip them.
bool readServiceFile(const std::string &path, facts::Unit &out, std::string &error);

} // namespace afunix::analysis
