/*
 * rules_stacks.c — two CUDA stacks in one environment (see rules.h:
 * ts_rules_check_cuda_stacks).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "pep/name.h"
#include "rules/rules.h"

/* The CUDA major a distribution belongs to, or 0: nvidia-*-cuNN by its
 * name, cuda-toolkit by its version, a +cuNNN build by its label. */
static unsigned cuda_major(const char *name, const char *version) {
  char *n = ts_name_normalize(name, strlen(name));
  unsigned major = 0;
  const char *cu = n ? strrchr(n, '-') : NULL;
  if (n && strncmp(n, "nvidia-", 7) == 0 && cu && strncmp(cu, "-cu", 3) == 0 &&
      isdigit((unsigned char)cu[3]))
    major = (unsigned)strtoul(cu + 3, NULL, 10);
  else if (n && strcmp(n, "cuda-toolkit") == 0 && version)
    major = (unsigned)strtoul(version, NULL, 10);
  else if (version && (cu = strstr(version, "+cu")) && isdigit((unsigned char)cu[3]))
    major = (unsigned)strtoul(cu + 3, NULL, 10) / 10;
  free(n);
  return major;
}

enum ts_code ts_rules_check_cuda_stacks(const struct ts_installed *pkgs, size_t npkgs,
                                        struct ts_rules_finding **out, size_t *nout,
                                        struct ts_error *err) {
  (void)err;
  unsigned majors[8];
  size_t nmajors = 0;
  for (size_t i = 0; i < npkgs; i++) {
    unsigned m = cuda_major(pkgs[i].name, pkgs[i].version);
    bool seen = m == 0;
    for (size_t k = 0; k < nmajors && !seen; k++)
      seen = majors[k] == m;
    if (!seen && nmajors < sizeof majors / sizeof majors[0])
      majors[nmajors++] = m;
  }
  if (nmajors < 2)
    return TS_OK;
  struct ts_buf detail;
  ts_buf_init(&detail, 0);
  for (size_t k = 0; k < nmajors; k++) {
    ts_buf_xprintf(&detail, "%sCUDA %u:", k ? "; " : "", majors[k]);
    for (size_t i = 0; i < npkgs; i++)
      if (cuda_major(pkgs[i].name, pkgs[i].version) == majors[k])
        ts_buf_xprintf(&detail, " %s %s", pkgs[i].name, pkgs[i].version);
  }
  *out = ts_xreallocarray(*out, *nout + 1, sizeof **out);
  struct ts_rules_finding *f = &(*out)[(*nout)++];
  f->id = ts_xstrdup("cuda-stacks");
  f->subject = ts_xstrdup("the environment");
  f->detail = ts_buf_take(&detail, NULL);
  f->message = ts_xasprintf("%zu CUDA stacks are installed side by side; torch loads one, "
                            "and the other's libraries shadow or waste it", nmajors);
  f->fix = ts_xstrdup("uninstall the packages of the stack torch does not use "
                      "('torchsolve uninstall NAME...')");
  f->source = ts_xstrdup("");
  return TS_OK;
}
