// The built-in model catalog (models/*.yaml), compiled in: the check options the analysis starts
// from before a project's own (afunix/Models.h; docs/models.md). Header-only data.
#pragma once

namespace afunix::catalog {

struct BuiltinModelOption {
  const char *option; // a ProjectOptions name: CallbackRegistrars, FdHolders, Allocators, ...
  const char *value;  // its ';'-separated list
};

} // namespace afunix::catalog

#include "afunix/ModelCatalogGenerated.inc"
