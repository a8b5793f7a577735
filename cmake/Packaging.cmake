# Install layout beyond the targets' own install() rules, and the Debian package (CPack).
# Included last from the root CMakeLists.txt, so every target exists by now.
#
#   bin/      afunix-check afunix-clangd afunix-probe         (their own CMakeLists install them)
#   lib/      libafunix-tidy.so libafunix-probe.so            (likewise)
#   share/afunix-compat/rules/*.yaml                          (rules/CMakeLists.txt)
#   share/doc/afunix-compat/  README.md, docs/**/*.md         (here)
#   share/man/man1/*.1                                        (here, from docs/man)

# Every tool must be installed; a target whose CMakeLists has no install() rule would be missing
# from the prefix and the .deb. All of them have one today: this list is what the install test
# (checker/integration-test/install_test.py) checks for, file by file.
set(AFUNIX_INSTALLED_TOOLS afunix-check afunix-clangd afunix-probe afunix-tidy afunix-probe-preload)

install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md" PATTERN "man" EXCLUDE)
file(GLOB AFUNIX_MAN_PAGES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/docs/man/*.1)
# afunix-check.1 is made from the binary's own --help, so it never disagrees with it.
if(TARGET afunix-check)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(AFUNIX_CHECK_MAN ${CMAKE_BINARY_DIR}/man/afunix-check.1)
  add_custom_command(OUTPUT ${AFUNIX_CHECK_MAN}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/man/help2man.py
            $<TARGET_FILE:afunix-check> ${PROJECT_VERSION} ${AFUNIX_CHECK_MAN}
    DEPENDS afunix-check ${CMAKE_CURRENT_SOURCE_DIR}/docs/man/help2man.py
    COMMENT "Generating afunix-check.1 from afunix-check --help")
  add_custom_target(afunix-man ALL DEPENDS ${AFUNIX_CHECK_MAN})
  list(APPEND AFUNIX_MAN_PAGES ${AFUNIX_CHECK_MAN})
endif()
install(FILES ${AFUNIX_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# The .deb: `cpack -G DEB --config build/CPackConfig.cmake`. Runtime dependencies are the Debian
# bookworm packages of what the binaries link (libclang-cpp, libLLVM, yaml-cpp, and the gRPC /
# protobuf / abseil libraries clangd 19's remote index needs) plus clang's resource headers
# (stddef.h and friends), which every parse needs.
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
libyaml-cpp0.7, libgrpc++1.51, libgrpc29, libprotobuf32, libabsl20220623")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "clang-tidy-19, clang-tools-19")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${AFUNIX_DOCS_URL}")
include(CPack)
