#!/usr/bin/env python3
"""The prefilter's vocabulary keeps up with the extractor (docs/prefilter.md).

Every identifier the extractor compares names with (a string literal in checker/analysis/Extract*
and AstUtil.cpp) is either in socketVocabulary()'s built-in list (checker/analysis/Relevance.cpp):
a file naming it is parsed whatever else it names; or listed below as a word that makes a fact
only about an fd the program hands in by its own names (which the prefilter follows). A new word
in the extractor fails this test until it is put in one or the other.
"""
import glob
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ANALYSIS = os.path.join(REPO, "checker", "analysis")

# Words that matter only where a socket of the program already is: a file naming one of them and
# nothing the prefilter follows holds no socket for them to act on.
NAMES_ONLY = {
    # fds that are not sockets, and what copies or uses any fd
    "open", "open64", "openat", "openat64", "openat2", "creat", "creat64", "pipe", "pipe2",
    "eventfd", "signalfd", "timerfd_create", "inotify_init", "inotify_init1", "fanotify_init",
    "memfd_create", "memfd_secret", "userfaultfd", "pidfd_open", "posix_openpt", "shm_open",
    "mkstemp", "mkstemps", "mkostemp", "mkostemps", "epoll_create", "epoll_create1", "fileno",
    "dup", "dup2", "dup3", "fcntl", "ioctl", "close", "read", "readv", "write", "writev",
    "epoll_wait", "epoll_pwait", "epoll_pwait2", "__read_chk", "__recv_chk", "__recvfrom_chk",
    "msg_name", "SCM_PIDFD",
    # errno, string and memory helpers the extractor reads values through
    "EAGAIN", "EWOULDBLOCK", "__errno", "__errno_location", "__error", "memcpy", "memmove",
    "__builtin_memcpy", "__builtin_memmove", "__builtin___memcpy_chk", "__builtin___memmove_chk",
    "strcpy", "strncpy", "stpcpy", "stpncpy", "strlcpy", "__builtin_strcpy", "__builtin_strncpy",
    "snprintf", "sprintf", "strcmp", "strncmp", "strcasecmp", "streq", "strcaseeq", "string_equal",
    "g_str_equal", "g_strcmp0", "STR_IN_SET",
    # C++ library names: containers, smart pointers, iterators, utilities, fd-owner shapes
    "allocate_shared", "array", "as_const", "assign", "at", "back", "begin", "cbegin", "cend",
    "construct_at", "data", "deque", "emplace", "emplace_back", "emplace_front", "emplace_hint",
    "empty", "end", "find", "forward", "front", "function", "get", "initializer_list", "insert",
    "is_open", "is_valid", "list", "lock", "lower_bound", "make_", "make_optional", "make_shared",
    "make_unique", "map", "move", "move_iterator", "move_only_function", "multimap",
    "native_handle", "optional", "push", "push_back", "push_front", "rbegin", "reference_wrapper",
    "release", "rend", "reset", "resize", "reverse_iterator", "second", "set", "shared_ptr", "span", "swap",
    "try_emplace", "unique_ptr", "unordered_map", "unordered_multimap", "unordered_set",
    "upper_bound", "valid", "value", "value_or", "vector", "weak_ptr", "Close", "Get", "IsValid",
    # algorithms returning an iterator into the range they are given
    "adjacent_find", "find_end", "find_first_of", "find_if", "find_if_not", "is_heap_until",
    "is_sorted_until", "max_element", "min_element", "next", "partition", "partition_point",
    "prev", "remove", "remove_if", "search", "search_n", "stable_partition", "unique",
    "Release", "Reset", "ok",
    "_Deque_iterator", "_List_const_iterator", "_List_iterator", "_Node_const_iterator",
    "_Node_iterator", "_Rb_tree_const_iterator", "_Rb_tree_iterator", "__normal_iterator",
    "__wrap_iter", "__gnu_cxx", "__detail", "pair", "make_pair", "first", "insert_or_assign", "exchange",
    "value_type", "size", "size_bytes", "max_size", "for_each", "for_each_n",
    # std::bind's and boost::bind's placeholders (a bound handler is followed from where it is named)
    "_Placeholder", "__ph", "arg", "boost",
    # what calls a callable with the arguments after it (std::thread(f, fd), std::async, std::invoke)
    "thread", "jthread", "async", "invoke",
    # an object's own address as a smart pointer (a session's `self`)
    "enable_shared_from_this", "shared_from_this", "weak_from_this",
    # the extractor's own vocabulary: place kinds, option names, messages, examples
    "fd", "fds", "h", "t", "this", "lambda", "object", "Objects", "logdw", "varlink",
}


def literals():
    words = set()
    for path in glob.glob(os.path.join(ANALYSIS, "Extract*")) + [os.path.join(ANALYSIS, "AstUtil.cpp")]:
        with open(path, encoding="utf-8") as f:
            words |= set(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', f.read()))
    return words


def vocabulary():
    with open(os.path.join(ANALYSIS, "Relevance.cpp"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("static const char *const builtin[] = {")
    return set(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', text[start:text.index("};", start)]))


def main():
    used, words = literals(), vocabulary()
    problems = []
    for word in sorted(used - words - NAMES_ONLY):
        problems.append(f"the extractor reads '{word}': add it to socketVocabulary() in "
                        "Relevance.cpp, or to NAMES_ONLY here if it acts only on sockets reached by name")
    for word in sorted(NAMES_ONLY & words):
        problems.append(f"'{word}' is both in the vocabulary and in NAMES_ONLY")
    for word in sorted(NAMES_ONLY - used):
        problems.append(f"'{word}' in NAMES_ONLY is no longer in the extractor: drop it")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"{len(used)} extractor words: {len(used & words)} in the vocabulary, "
          f"{len(used & NAMES_ONLY)} reached by name; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
