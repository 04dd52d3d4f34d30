/* Whether an installed distribution is exactly what torchsolve would
 * install; see ts_wheel_installed_exact in wheel.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/filehash.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "wheel/record.h"
#include "wheel/wheel.h"

/* Files up to this size are re-hashed; larger ones checked by size (a
 * torch tree holds gigabytes in a few hundred .so files). */
#define HASH_UP_TO (256u * 1024)

static bool file_is(const char *distinfo, const char *name, const char *want) {
  char *p = ts_path_join(distinfo, name);
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_TINY_FILE);
  bool ok = ts_fs_read_file(p, &b, NULL) == TS_OK && b.len == strlen(want) &&
            memcmp(b.data, want, b.len) == 0;
  ts_buf_clear(&b);
  free(p);
  return ok;
}

static bool exists(const char *distinfo, const char *name) {
  char *p = ts_path_join(distinfo, name);
  bool ok = access(p, F_OK) == 0;
  free(p);
  return ok;
}

/* Every file RECORD lists is there with its size, and its hash when small. */
static bool record_holds(const char *distinfo, const char **why) {
  struct ts_record rec;
  if (ts_record_read_distinfo(distinfo, &rec, NULL) != TS_OK) {
    ts_record_clear(&rec);
    *why = "its RECORD cannot be read";
    return false;
  }
  char *site = ts_xstrdup(distinfo);
  *strrchr(site, '/') = '\0';
  bool ok = true;
  for (size_t i = 0; ok && i < rec.count; i++) {
    const struct ts_record_row *row = &rec.rows[i];
    if (!row->hash[0])
      continue; /* RECORD itself */
    char *p = row->path[0] == '/' ? ts_xstrdup(row->path) : ts_path_join(site, row->path);
    struct stat st;
    char *end = NULL;
    unsigned long long size = row->size[0] ? strtoull(row->size, &end, 10) : 0;
    ok = lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
         (!row->size[0] || (*end == '\0' && size == (unsigned long long)st.st_size));
    uint8_t want[TS_SHA256_LEN], got[TS_SHA256_LEN];
    if (ok && st.st_size <= HASH_UP_TO &&
        ts_record_hash_sha256(row->hash, want, NULL) == TS_OK)
      ok = ts_filehash_path(p, NULL, got, NULL, NULL) == TS_OK &&
           memcmp(want, got, sizeof want) == 0;
    if (!ok)
      *why = "a file no longer matches its RECORD";
    free(p);
  }
  free(site);
  ts_record_clear(&rec);
  return ok;
}

bool ts_wheel_installed_exact(const char *distinfo, const char *sha256_hex,
                              bool requested, const char **why) {
  char want[TS_SHA256_HEX_LEN + 2];
  snprintf(want, sizeof want, "%s\n", sha256_hex);
  *why = NULL;
  if (!file_is(distinfo, "INSTALLER", "torchsolve\n"))
    *why = "another installer put it there";
  else if (!file_is(distinfo, TS_WHEEL_SHA256_FILE, want))
    *why = "it was installed from another wheel";
  else if (exists(distinfo, "REQUESTED") != requested)
    *why = requested ? "it was installed as a dependency" : "it was installed on request";
  else if (exists(distinfo, "direct_url.json"))
    *why = "it was installed from a path or URL";
  else
    record_holds(distinfo, why);
  return *why == NULL;
}
