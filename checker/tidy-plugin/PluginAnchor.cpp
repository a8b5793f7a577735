// The plugin is the checks archive, linked whole; clang-tidy finds the module through the
// registry entry in AfunixTidyModule.cpp when it dlopen()s this file.
extern volatile int AfunixModuleAnchorSource;
[[maybe_unused]] static int AfunixModuleAnchorDestination = AfunixModuleAnchorSource;
