/* An sdist's PKG-INFO read straight from its .tar.gz, for the metadata a
 * lock may take without running the build backend (PEP 643). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "source/source.h"

#define BLOCK 512

static bool ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && strcmp(s + n - t, tail) == 0;
}

/* A ustar size field: octal digits, NUL or space terminated. */
static bool tar_size(const unsigned char *h, uint64_t *out) {
  uint64_t v = 0;
  size_t i = 124;
  while (i < 136 && h[i] == ' ')
    i++;
  for (; i < 136 && h[i] >= '0' && h[i] <= '7'; i++) {
    if (v > (UINT64_MAX >> 3))
      return false;
    v = v * 8 + (uint64_t)(h[i] - '0');
  }
  *out = v;
  return true;
}

/* The member's path: ustar's prefix "/" name, without a leading "./". */
static void tar_path(const unsigned char *h, char *out, size_t cap) {
  char name[101], prefix[156];
  memcpy(name, h, 100);
  name[100] = 0;
  memcpy(prefix, h + 345, 155);
  prefix[155] = 0;
  if (memcmp(h + 257, "ustar", 5) == 0 && prefix[0])
    snprintf(out, cap, "%s/%s", prefix, name);
  else
    snprintf(out, cap, "%s", name);
  if (strncmp(out, "./", 2) == 0)
    memmove(out, out + 2, strlen(out + 2) + 1);
}

/* PKG-INFO sits at TOP/PKG-INFO: exactly one directory deep. */
static bool is_top_pkg_info(const char *path) {
  const char *slash = strchr(path, '/');
  return slash && slash != path && strcmp(slash + 1, "PKG-INFO") == 0;
}

static bool skip(gzFile gz, uint64_t n) {
  unsigned char b[BLOCK * 8];
  while (n) {
    unsigned want = n < sizeof b ? (unsigned)n : (unsigned)sizeof b;
    if (gzread(gz, b, want) != (int)want)
      return false;
    n -= want;
  }
  return true;
}

enum ts_code ts_source_sdist_pkg_info(const char *archive, char **data, size_t *len,
                                      struct ts_error *err) {
  *data = NULL;
  *len = 0;
  if (!ends_with(archive, ".tar.gz") && !ends_with(archive, ".tgz"))
    return TS_OK;
  gzFile gz = gzopen(archive, "rb");
  if (!gz)
    return ts_error_set(err, TS_E_IO, "cannot open sdist '%s'", archive);
  enum ts_code rc = TS_OK;
  unsigned char h[BLOCK];
  for (;;) {
    int got = gzread(gz, h, BLOCK);
    if (got == 0)
      break;
    if (got != BLOCK) {
      rc = ts_error_set(err, TS_E_PARSE, "sdist '%s' is not a complete tar.gz", archive);
      break;
    }
    if (h[0] == 0)
      break; /* the end-of-archive blocks */
    uint64_t size = 0;
    if (!tar_size(h, &size)) {
      rc = ts_error_set(err, TS_E_PARSE, "sdist '%s' has a bad tar header", archive);
      break;
    }
    char path[300];
    tar_path(h, path, sizeof path);
    bool regular = h[156] == '0' || h[156] == 0;
    if (regular && is_top_pkg_info(path)) {
      if (size > TS_CAP_METADATA) {
        rc = ts_error_set(err, TS_E_TOO_BIG, "%s in '%s' is over %u bytes", path, archive,
                          TS_CAP_METADATA);
        break;
      }
      char *buf = ts_xmalloc((size_t)size + 1);
      if (gzread(gz, buf, (unsigned)size) != (int)size) {
        free(buf);
        rc = ts_error_set(err, TS_E_PARSE, "sdist '%s' ends inside %s", archive, path);
        break;
      }
      buf[size] = 0;
      *data = buf;
      *len = (size_t)size;
      break;
    }
    if (!skip(gz, (size + BLOCK - 1) / BLOCK * BLOCK)) {
      rc = ts_error_set(err, TS_E_PARSE, "sdist '%s' ends inside %s", archive, path);
      break;
    }
  }
  gzclose(gz);
  return rc;
}
