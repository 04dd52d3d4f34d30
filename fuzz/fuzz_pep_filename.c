/* libFuzzer target: wheel/sdist file names, names, and tag lookups. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pep/filename.h"
#include "pep/name.h"
#include "pep/tags.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Built once (about 1 ms) and kept for the whole run: it stays reachable,
 * so the leak checker does not count it. */
static struct ts_tagset *host_tags(void)
{
  static struct ts_tagset *set;
  struct ts_tag_target t = {.python_major = 3, .python_minor = 12,
                            .implementation = "cp", .abi_flags = "",
                            .libc = TS_LIBC_GLIBC, .libc_major = 2,
                            .libc_minor = 28, .arch = "x86_64"};
  if (!set && ts_tagset_build(&t, &set, NULL) != TS_OK)
    abort();
  return set;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *s = (const char *)data;
  struct ts_wheel_filename *w = NULL;
  struct ts_error err = {0};
  enum ts_code rc = ts_wheel_filename_parse(s, size, &w, &err);
  if (rc == TS_OK) {
    /* Invariants of a parsed name. */
    if (!w->ntags || !w->normalized_name || !w->version)
      abort();
    if (!ts_name_is_normalized(w->normalized_name,
                               strlen(w->normalized_name)) &&
        ts_name_is_valid(w->name, strlen(w->name)))
      abort();
    if (ts_wheel_build_cmp(w, w) != 0)
      abort();
    struct ts_tagset *set = host_tags();
    long p = ts_tagset_best_priority(set, w->tags, w->ntags);
    if (p >= (long)ts_tagset_count(set))
      abort();
    for (size_t i = 0; i < w->ntags; i++)
      free(ts_tag_str(&w->tags[i]));
    ts_wheel_filename_free(w);
  } else if (w || !err.detail[0]) {
    abort();
  }
  struct ts_sdist_filename *sd = NULL;
  if (ts_sdist_filename_parse(s, size, &sd, NULL) == TS_OK)
    ts_sdist_filename_free(sd);
  (void)ts_wheel_filename_is_variant(s, size, NULL, NULL);
  (void)ts_dist_kind_of(s, size);

  /* Names: normalisation is idempotent and agrees with ts_name_eq. */
  char *n = ts_name_normalize(s, size);
  size_t nl = strlen(n);
  if (nl <= size) {
    char *n2 = ts_name_normalize(n, nl);
    if (strcmp(n, n2) != 0)
      abort();
    if (memchr(s, '\0', size) == NULL && !ts_name_eq(s, size, n, nl))
      abort();
    free(n2);
  }
  (void)ts_name_is_valid(s, size);
  (void)ts_name_is_normalized(s, size);
  free(n);
  return 0;
}
