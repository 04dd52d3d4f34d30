/*
 * pep/tags.h — PEP 425 compatibility tags: the ordered list of tags a target
 * interpreter supports (PEP 600 manylinux, PEP 656 musllinux, linux_<arch>),
 * in the priority order of packaging.tags.sys_tags (packaging >= 22, which
 * also yields cpXY-none-any), and a tag -> priority lookup.
 *
 * Pure: the facts about the target (Python version, ABI flags, libc, arch)
 * come from target/ (a probed interpreter or a --platform spec).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* One (python, abi, platform) triple, lowercase.  Strings are owned by
 * whatever holds the tag (a ts_tagset or a ts_wheel_filename). */
struct ts_tag {
  char *python;   /* "cp312", "py3" */
  char *abi;      /* "cp312", "abi3", "none" */
  char *platform; /* "manylinux_2_28_x86_64", "any" */
};

enum ts_libc {
  TS_LIBC_NONE = 0, /* no manylinux/musllinux tags: linux_<arch> only */
  TS_LIBC_GLIBC,
  TS_LIBC_MUSL,
};

/* The operating system the platform tags are for. */
enum ts_os {
  TS_OS_LINUX = 0, /* manylinux / musllinux / linux_<arch> */
  TS_OS_MACOS,     /* macosx_<major>_<minor>_<format> */
  TS_OS_WINDOWS,   /* win_amd64, win_arm64 */
  TS_OS_OTHER,     /* a system without platform tags: only "any" wheels */
};

/* What tag generation needs to know about the target.  Strings are
 * borrowed for the duration of ts_tagset_build. */
struct ts_tag_target {
  int python_major;         /* 3 */
  int python_minor;         /* 12 */
  const char *implementation; /* "cp" (CPython); "pp" and others get
                               * packaging's generic_tags */
  /* ABI flags as in the extension suffix: "" normally, "t" free-threaded,
   * "d" debug, "td" both.  NULL = "". */
  const char *abi_flags;
  /* For non-CPython: the interpreter's ABI tag ("pypy310_pp73"); NULL when
   * unknown (then only "none" tags are generated). */
  const char *abi_tag;
  enum ts_libc libc;
  int libc_major;           /* glibc 2.36 -> 2, 36; musl 1.2 -> 1, 2 */
  int libc_minor;
  const char *arch;         /* platform_machine: "x86_64", "aarch64";
                               macOS "x86_64", "arm64"; Windows "amd64",
                               "arm64" (as in win_<arch>) */
  enum ts_os os;            /* zero: Linux (libc above applies) */
  int macos_major;          /* TS_OS_MACOS: the newest release the tags
                               admit (14, 0 admits macosx_14_0 ... 10_4) */
  int macos_minor;
};

struct ts_tagset; /* opaque ordered list with a hash lookup */

/* Builds the supported tags of `t` in priority order (index 0 is the most
 * preferred).  TS_E_UNSUPPORTED for an unknown implementation/arch shape,
 * TS_E_INVALID for impossible versions.  Caller frees with ts_tagset_free. */
enum ts_code ts_tagset_build(const struct ts_tag_target *t,
                             struct ts_tagset **out, struct ts_error *err);

/* Builds a set from tag strings given in priority order ("cp312-cp312-
 * linux_x86_64"); compressed sets ("py2.py3-none-any") expand in place.
 * Used for --platform lists and tests. */
enum ts_code ts_tagset_from_strings(const char *const *tags, size_t n,
                                   struct ts_tagset **out,
                                   struct ts_error *err);
void ts_tagset_free(struct ts_tagset *set);

size_t ts_tagset_count(const struct ts_tagset *set);
const struct ts_tag *ts_tagset_at(const struct ts_tagset *set, size_t i);

/* Priority of a tag: its index in the set (lower = better), or -1 when the
 * target does not support it.  Case-insensitive, as packaging's Tag. */
long ts_tagset_priority(const struct ts_tagset *set, const char *python,
                        const char *abi, const char *platform);
/* Best (lowest) priority among tags[0..n), or -1 if none is supported:
 * the priority of a wheel whose filename expands to these tags. */
long ts_tagset_best_priority(const struct ts_tagset *set,
                             const struct ts_tag *tags, size_t n);

/* Formats "python-abi-platform" into a malloc'd string (aborts on OOM). */
char *ts_tag_str(const struct ts_tag *tag);

/* The platform tags alone, in priority order, for a linux target
 * ("manylinux_2_36_x86_64", ..., "manylinux1_x86_64", "linux_x86_64").
 * Writes up to cap malloc'd strings into out and returns how many there are
 * (call with cap 0 to size); caller frees each. */
size_t ts_tags_linux_platforms(const struct ts_tag_target *t, char **out,
                               size_t cap);
