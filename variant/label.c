/*
 * variant/label.c — variant labels in wheel file names (label.h).
 */
#include "variant/label.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "pep/filename.h"
#include "pep/name.h"

bool ts_variant_label_valid(const char *s, size_t len)
{
  if (len == 0)
    return false;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '_' || c == '.'))
      return false;
  }
  return true;
}

enum ts_code ts_variant_split_filename(const char *s, size_t len, char **plain,
                                       char **label, struct ts_error *err)
{
  *plain = NULL;
  *label = NULL;
  int shown = len > TS_ERROR_QUOTE_MAX ? TS_ERROR_QUOTE_MAX : (int)len;
  if (len < 4 || memcmp(s + len - 4, ".whl", 4) != 0)
    return ts_error_set(err, TS_E_PARSE, "'%.*s' is not a wheel file name", shown, s);
  size_t stem = len - 4, dashes[8], n = 0;
  for (size_t i = 0; i < stem; i++) {
    if (s[i] != '-')
      continue;
    if (n == 7)
      return ts_error_set(err, TS_E_PARSE,
                          "'%.*s' has more than seven dash-separated parts", shown, s);
    dashes[n++] = i;
  }
  size_t parts = n + 1;
  if (parts > 7)
    return ts_error_set(err, TS_E_PARSE,
                        "'%.*s' has more than seven dash-separated parts", shown, s);
  if (parts < 5)
    return ts_error_set(err, TS_E_PARSE, "'%.*s' has fewer than five parts", shown, s);
  bool third_is_build = dashes[1] + 1 < stem && s[dashes[1] + 1] >= '0' && s[dashes[1] + 1] <= '9';
  bool has_label = parts == 7 || (parts == 6 && !third_is_build);
  if (!has_label) {
    *plain = ts_xstrndup(s, len);
    return TS_OK;
  }
  size_t lstart = dashes[n - 1] + 1;
  if (!ts_variant_label_valid(s + lstart, stem - lstart))
    return ts_error_set(err, TS_E_PARSE,
                        "'%.*s': variant label '%.*s' is not of [0-9a-z_.]", shown, s,
                        (int)(stem - lstart > 100 ? 100 : stem - lstart), s + lstart);
  *label = ts_xstrndup(s + lstart, stem - lstart);
  size_t keep = dashes[n - 1];
  char *p = ts_xmalloc(keep + 5);
  memcpy(p, s, keep);
  memcpy(p + keep, ".whl", 5);
  *plain = p;
  return TS_OK;
}

enum ts_code ts_variant_wheel_filename_parse(const char *s, size_t len,
                                             struct ts_wheel_filename **out, char **label,
                                             struct ts_error *err)
{
  char *plain = NULL, *l = NULL;
  *out = NULL;
  if (label)
    *label = NULL;
  enum ts_code rc = ts_variant_split_filename(s, len, &plain, &l, err);
  if (rc == TS_OK)
    rc = ts_wheel_filename_parse(plain, strlen(plain), out, err);
  free(plain);
  if (rc == TS_OK && label)
    *label = l;
  else
    free(l);
  return rc;
}

char *ts_variant_torch_twin(const char *label)
{
  unsigned major, minor;
  char tail;
  if (sscanf(label, "cuda%u.%u%c", &major, &minor, &tail) == 2)
    return ts_xasprintf("cu%u%u", major, minor);
  if (sscanf(label, "rocm%u.%u%c", &major, &minor, &tail) == 2)
    return ts_xasprintf("rocm%u.%u", major, minor);
  if (strcmp(label, "xpu") == 0 || strcmp(label, "cpu") == 0)
    return ts_xstrdup(label);
  if (strcmp(label, TS_VARIANT_NULL_LABEL) == 0)
    return ts_xstrdup("cpu");
  return NULL;
}

bool ts_variant_is_metadata_file(const char *filename, const char *name,
                                 const char *version) {
  static const char suffix[] = "-variants.json";
  size_t n = strlen(filename), sl = sizeof suffix - 1, vl = strlen(version);
  if (n <= sl + vl + 1 || strcmp(filename + n - sl, suffix) != 0)
    return false;
  const char *ver = filename + n - sl - vl;
  if (strncmp(ver, version, vl) != 0 || ver[-1] != '-')
    return false;
  char *got = ts_name_normalize(filename, (size_t)(ver - 1 - filename));
  char *want = ts_name_normalize(name, strlen(name));
  bool ok = got && want && strcmp(got, want) == 0;
  free(got);
  free(want);
  return ok;
}
