# Install layout beyond the targets' own install() rules, and the Debian package (CPack).
# Included last from the root CMakeLists.txt, so every target exists by now.
#
#   bin/      afunix-check afunix-clangd afunix-probe         (their own CMakeLists install them)
#   lib/      libafunix-tidy.so libafunix-probe.so            (likewise)
#   share/afunix-compat/rules/*.yaml                          (rules/CMakeLists.txt)
#   share/doc/afunix-compat/  docs/**/*.md (docs/README.md is the index) (here)
#   share/man/man1/*.1                                        (each tool's CMakeLists; the probe's here)
#
# Install components, so a job that built one tool installs just that tool
# (`cmake --install build --component afunix-check`, docs/guide-ci.md):
#   afunix-check   bin/afunix-check, afunix-check.1 (made when afunix-check is linked)
#   afunix-clangd  bin/afunix-clangd, afunix-clangd.1
#   afunix-tidy    lib/libafunix-tidy.so
#   docs           README, docs/ (the rule pages the tools link to), the rule catalog YAML
#   (the probe's files have no component of their own yet: `cmake --install build` installs all)

# Every tool must be installed; a target whose CMakeLists has no install() rule would be missing
# from the prefix and the .deb. All of them have one today: this list is what the install test
# (checker/integration-test/install_test.py) checks for, file by file.
set(AFUNIX_INSTALLED_TOOLS afunix-check afunix-clangd afunix-probe afunix-tidy afunix-probe-preload)
set(AFUNIX_INSTALL_COMPONENTS afunix-check afunix-clangd afunix-tidy docs)

# docs/README.md is the installed index (share/doc/afunix-compat/README.md); the repository's
# README.md, whose links point into docs/, would collide with it and is not installed.
install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT docs FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "man" EXCLUDE
        # The corpus measurements point into bench/: a document of the source tree only.
        PATTERN "accuracy.md" EXCLUDE)

# The .deb: `cpack -G DEB --config build/CPackConfig.cmake`. Runtime dependencies are the Debian
# bookworm packages of what the binaries load (afunix-clangd's libclang-cpp and libLLVM, with the
# gRPC / protobuf / abseil libraries clangd 19's remote index needs; what the static LLVM in
# afunix-check and afunix-probe needs: libz3, libxml2, zstd, zlib; yaml-cpp) plus clang's
# resource headers (stddef.h and friends), which every parse needs. install_test.py checks the
# list against the binaries' NEEDED entries.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME afunix-compat)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "afunix-compat")
set(CPACK_PACKAGE_CONTACT "afunix-compat maintainers <maintainers@afunix-compat.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Linux AF_UNIX behaviour-change checker (clang-tidy checks, clangd, LD_PRELOAD probe)")
set(CPACK_PACKAGE_DESCRIPTION
    "afunix-check finds code that breaks on AF_UNIX behaviour changes of the Linux kernel \
(SO_PASSCRED timing, unix GC throttling of fd passing, SCM_MAX_FD); the same checks ship as a \
clang-tidy-19 plugin and inside afunix-clangd. afunix-probe runs programs under an LD_PRELOAD \
probe that reports what the kernel really did.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libc6, libstdc++6, libgcc-s1, libclang-cpp19, libllvm19, libclang-common-19-dev, \
libyaml-cpp0.7, libgrpc++1.51, libgrpc29, libprotobuf32, libabsl20220623, libz3-4, libxml2, \
libzstd1, zlib1g")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "clang-tidy-19, clang-tools-19")
# No Homepage field unless one is known: a made-up URL would send users nowhere.
if(AFUNIX_HOMEPAGE_URL)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${AFUNIX_HOMEPAGE_URL}")
endif()
include(CPack)
