// Another instantiation of the handle template, holding no fd: its move constructor binds the
// `const T &` of Data's constructor to an object's address where client.cc's binds it to an int.
#include <string>
#include <vector>

#include "scoped_handle.h"

struct RemoveTraits {
  static std::string InvalidValue() { return std::string(); }
  static void Free(const std::string &path) { unlink(path.c_str()); }
};
using ScopedRemoveFile = ScopedHandle<std::string, RemoveTraits>;

struct Report {
  std::vector<ScopedRemoveFile> removers;
  void AddAttachment(const std::string &path) { removers.emplace_back(ScopedRemoveFile(path)); }
};

void keep_attachment(Report *report, const std::string &path) { report->AddAttachment(path); }
