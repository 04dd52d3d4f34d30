/* Torch-matched builds: see build_torch.h. */
#include "source/build_torch.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/proc.h"
#include "core/str.h"
#include "pep/name.h"
#include "pep/requirement.h"

/* Whether `location` names host/path `from` ("github.com/NVIDIA/apex"):
 * as a URL's host and path, any scheme, case-insensitive, with or without
 * ".git", followed by nothing or a ref, subdirectory or path. */
static bool location_is(const char *location, const char *from) {
  const char *p = location ? strstr(location, "://") : NULL;
  if (!p)
    return false;
  p += 3;
  const char *at = memchr(p, '@', strcspn(p, "/")); /* user@host */
  if (at)
    p = at + 1;
  size_t n = strlen(from);
  if (strncasecmp(p, from, n) != 0)
    return false;
  p += n;
  if (strncmp(p, ".git", 4) == 0)
    p += 4;
  return *p == '\0' || *p == '/' || *p == '@' || *p == '#';
}

bool ts_build_torch_needed(const struct ts_build_system *bs, const char *project,
                           const char *location, const struct ts_rules *rules, bool *nvcc) {
  *nvcc = false;
  const struct ts_rules_torch_build *tb = NULL;
  if (project) {
    char *norm = ts_name_normalize(project, strlen(project));
    tb = ts_rules_find_torch_build(rules, norm);
    free(norm);
  }
  if (tb && tb->only_from && !location_is(location, tb->only_from))
    tb = NULL; /* another project of the same name (PyPI's apex) */
  if (tb) {
    *nvcc = tb->nvcc;
    return true;
  }
  bool declared = false;
  for (size_t i = 0; i < bs->nrequires && !declared; i++) {
    struct ts_requirement *req = NULL;
    struct ts_error ignore = {0};
    if (ts_requirement_parse(bs->requires[i], strlen(bs->requires[i]), &req, &ignore) == TS_OK)
      declared = strcmp(req->normalized_name, "torch") == 0;
    ts_requirement_free(req);
  }
  return declared;
}

const struct ts_rules_backend *ts_build_torch_backend(const struct ts_rules *rules,
                                                      const char *torch_version) {
  const char *plus = torch_version ? strchr(torch_version, '+') : NULL;
  return plus && rules ? ts_rules_find_backend(rules, plus + 1) : NULL;
}

static void push_env(char ***env, size_t *n, const char *name, const char *value) {
  if (getenv(name) || !value || !*value)
    return;
  *env = ts_xrealloc(*env, (*n + 1) * sizeof **env);
  (*env)[(*n)++] = ts_xasprintf("%s=%s", name, value);
}

/* The distinct values joined by ';', sorted (several GPUs of one kind
 * give one entry); NULL when there are none. */
static char *distinct_list(const char **v, size_t n) {
  if (n == 0)
    return NULL;
  qsort(v, n, sizeof *v, ts_strv_cmp);
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_SMALL_FILE);
  for (size_t i = 0; i < n; i++)
    if ((i == 0 || strcmp(v[i], v[i - 1]) != 0) &&
        ((b.len && ts_buf_append_str(&b, ";") != TS_OK) || ts_buf_append_str(&b, v[i]) != TS_OK))
      break; /* a GPU list past the cap: keep what fits */
  return ts_buf_take(&b, NULL);
}

void ts_build_torch_env(const struct ts_rules_backend *b, const struct ts_host *host,
                        char ***env, size_t *n) {
  if (!b || (b->kind != TS_BACKEND_CUDA && b->kind != TS_BACKEND_ROCM))
    return;
  size_t ngpus = host ? (b->kind == TS_BACKEND_CUDA ? host->ncuda_gpus : host->nrocm_gpus) : 0;
  const char **v = ts_xcalloc(ngpus + 1, sizeof *v);
  size_t k = 0;
  for (size_t i = 0; i < ngpus; i++) {
    const char *x = b->kind == TS_BACKEND_CUDA ? host->cuda_gpus[i].compute_capability
                                               : host->rocm_gpus[i].gfx;
    if (x)
      v[k++] = x;
  }
  char *list = distinct_list(v, k);
  free(v);
  if (b->kind == TS_BACKEND_CUDA) {
    push_env(env, n, "TORCH_CUDA_ARCH_LIST", list);
    push_env(env, n, "FORCE_CUDA", "1");
  } else {
    push_env(env, n, "PYTORCH_ROCM_ARCH", list);
  }
  free(list);
}

/* The nvcc a torch extension build would use, malloc'd, or NULL. */
static char *find_nvcc(void) {
  static const char *const homes[] = {"CUDA_HOME", "CUDA_PATH"};
  for (size_t i = 0; i < sizeof homes / sizeof homes[0]; i++) {
    const char *h = getenv(homes[i]);
    if (h && *h) {
      char *p = ts_xasprintf("%s/bin/nvcc", h);
      if (access(p, X_OK) == 0)
        return p;
      free(p);
    }
  }
  return ts_proc_find_program("nvcc");
}

/* "12.6" from nvcc --version's "Cuda compilation tools, release 12.6, ...". */
static bool nvcc_release(const char *out, char rel[16]) {
  const char *r = out ? strstr(out, "release ") : NULL;
  if (!r)
    return false;
  r += strlen("release ");
  size_t n = 0;
  while (n < 15 && (isdigit((unsigned char)r[n]) || r[n] == '.'))
    n++;
  memcpy(rel, r, n);
  rel[n] = '\0';
  return n > 0 && strchr(rel, '.');
}

/* major.minor of a version ("12.6.77" → "12.6"). */
static void major_minor(const char *v, char out[16]) {
  size_t n = strcspn(v, ".");
  if (v[n] == '.')
    n += 1 + strcspn(v + n + 1, ".");
  snprintf(out, 16, "%.*s", (int)n, v);
}

/* The same CUDA release: major.minor when `exact`, else the major only. */
static bool same_cuda(const char *a, const char *b, bool exact) {
  return exact ? strcmp(a, b) == 0
               : strcspn(a, ".") == strcspn(b, ".") && strncmp(a, b, strcspn(a, ".")) == 0;
}

enum ts_code ts_build_torch_check_nvcc(const char *what, const char *torch_version,
                                       const char *torch_cuda, bool required,
                                       char **warning, struct ts_error *err) {
  *warning = NULL;
  char want[16];
  major_minor(torch_cuda, want);
  char *nvcc = find_nvcc();
  if (!nvcc)
    return required ? ts_error_set(err, TS_E_REFUSED,
                                   "%s compiles CUDA code against torch %s (CUDA %s) and "
                                   "no nvcc was found ($CUDA_HOME, $CUDA_PATH, PATH); fix: "
                                   "install the CUDA %s toolkit and set CUDA_HOME to it",
                                   what, torch_version, want, want)
                    : TS_OK;
  char *argv[] = {nvcc, "--version", NULL};
  struct ts_proc_options po = {.stderr_mode = TS_PROC_STDERR_DISCARD, .timeout_ms = 30000};
  struct ts_proc_result pr = {0};
  struct ts_error pe = {0};
  char rel[16] = "";
  enum ts_code rc = ts_proc_run(argv, &po, &pr, &pe);
  bool read = rc == TS_OK && ts_proc_succeeded(&pr) && nvcc_release(pr.out.data, rel);
  char have[16];
  major_minor(rel, have);
  rc = TS_OK;
  if (!read && required)
    rc = ts_error_set(err, TS_E_REFUSED,
                      "%s: '%s --version' does not say its CUDA release; fix: set CUDA_HOME "
                      "to the CUDA %s toolkit", what, nvcc, want);
  else if (!read)
    *warning = ts_xasprintf("%s: '%s --version' does not say its CUDA release (torch %s is "
                            "built with CUDA %s)", what, nvcc, torch_version, want);
  else if (!same_cuda(have, want, false) && required)
    rc = ts_error_set(err, TS_E_REFUSED,
                      "%s: nvcc is CUDA %s (%s) but torch %s is built with CUDA %s, another "
                      "major; fix: install the CUDA %s toolkit and set CUDA_HOME to it (or put "
                      "its nvcc first on PATH)", what, have, nvcc, torch_version, want, want);
  else if (!same_cuda(have, want, required))
    *warning = ts_xasprintf(
        "%s: nvcc is CUDA %s (%s) but torch %s is built with CUDA %s%s; the build goes on%s",
        what, have, nvcc, torch_version, want, required ? "" : ", another major",
        required ? " (torch refuses only another major)"
                 : ": its rules entry does not say it compiles CUDA code (nvcc: true), and "
                   "should it, torch's extension builder refuses the mismatch");
  ts_proc_result_clear(&pr);
  free(nvcc);
  return rc;
}
