// What a file must name to be able to change the findings, for the prefilter (docs/prefilter.md):
// the words that make the extractor write a fact by themselves, and the names the facts of the
// files parsed so far say other files reach sockets through. A file that names neither adds no
// fact that any rule reads: its unit would hold only places, flows and calls that touch nothing
// the program's sockets reach.
#pragma once

#include "Facts.h"
#include "ProjectOptions.h"

#include <set>
#include <string>
#include <vector>

namespace afunix::analysis {

class Program;

// The identifiers the extractor reacts to without knowing anything else about the program: the
// socket calls, constants, macros and structures it reads, and every function or class the model
// catalog and the project's options name. A file (with the project headers it includes) that
// names none of them can hold a socket only through a name of the program.
std::set<std::string> socketVocabulary(const ProjectOptions &options);

// The program's own names that reach sockets, read from the link of the units parsed so far. A
// place matters when a socket's origin reaches it or it flows into a place a socket fact is about
// (another file may store a socket there). Then:
//   - functions with a socket fact, or a parameter or return value that matters, and every
//     function that calls one of them (callers order, loop around and hand on what they do);
//   - callees handed what matters (an fd, an object, a control message), callees whose value
//     matters, function pointers taken and callbacks registered (what they do is in their file);
//   - fields and globals that matter (an object's field by its field name), and the pointers
//     calls that hand on what matters go through.
// Names only, without scope: a file that names `fd` of another record is parsed too (more files
// than needed, never fewer).
struct NamesThatMatter {
  std::set<std::string> used;    // a file that names one may matter (callers, fields, globals)
  std::set<std::string> defined; // a file that defines one may matter (callees, callbacks)
  std::set<std::string> fields;  // a file that accesses one may matter (x.fd, x->fd)
};
NamesThatMatter namesThatMatter(const Program &program);

// Every name the units' facts hold (functions, fields, globals), without asking which matter: a
// superset of namesThatMatter() of their link (used, defined and fields), found without linking.
std::set<std::string> namesInFacts(const std::vector<const facts::Unit *> &units);

// The identifier a function, field or global is written as: "Server::send" -> "send",
// "~UnixSocket" -> "UnixSocket", "f:conn::fd" -> "fd"; "" for an operator.
std::string writtenName(llvm::StringRef qualified);

} // namespace afunix::analysis
