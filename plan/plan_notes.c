/* Why a resolution took a CPU build: see plan.h (ts_plan_explain_cpu). */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "plan/plan.h"
#include "plan/plan_internal.h"
#include "rules/series.h"

/* The backend list of a torch series on this host (ts_rules_release_backends
 * over the compiled set); false when the rules do not know the series. */
static bool series_backends(const struct ts_plan_result *r, const struct ts_rules *rules,
                            const struct ts_host *h, bool ignore_host, const char *series,
                            struct ts_constraint_set *out) {
  struct ts_rules_options ro = {.ignore_host = ignore_host, .release = series};
  struct ts_error e = {0};
  memset(out, 0, sizeof *out);
  if (!rules || !ts_rules_find_release(rules, series))
    return false;
  if (ts_rules_release_backends(rules, h, &ro, &r->rules, out, &e) != TS_OK) {
    ts_constraint_set_clear(out);
    return false;
  }
  return true;
}

static const char *variant_of(const char *version) {
  const char *plus = strchr(version, '+');
  return plus ? plus + 1 : "";
}

bool ts_plan_explain_cpu(const struct ts_plan_result *r, const struct ts_rules *rules,
                         const struct ts_host *h, bool ignore_host,
                         struct ts_plan_cpu_note *out) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; r->res && i < r->res->nitems; i++) {
    const struct ts_resolved *x = &r->res->items[i];
    if (strcmp(variant_of(x->version), "cpu") != 0)
      continue;
    out->item = x;
    /* judged for the torch series chosen (torch==2.5.1 on an RX 7900 XT has
     * no GPU build; torch 2.4 has one), not only the newest:
     * "2.5.1+cpu" -> "2.5"; torchvision/torchaudio follow torch's */
    const char *tv = x->version;
    for (size_t k = 0; k < r->res->nitems; k++)
      if (strcmp(r->res->items[k].name, "torch") == 0)
        tv = r->res->items[k].version;
    const char *d1 = strchr(tv, '.');
    size_t n = d1 ? strspn(d1 + 1, "0123456789") : 0;
    if (d1 && n && (size_t)(d1 - tv) + 1 + n < sizeof out->series)
      memcpy(out->series, tv, (size_t)(d1 - tv) + 1 + n);
    out->backends = &r->rules;
    if (out->series[0] &&
        series_backends(r, rules, h, ignore_host, out->series, &out->series_backends))
      out->backends = &out->series_backends;
    if (ts_rules_has_gpu_backend(out->backends)) {
      out->why = TS_PLAN_CPU_RULED_OUT;
      return true;
    }
    /* the newest series that has a GPU build here, as detect says */
    const struct ts_rules_release *newest =
        ts_rules_newest_gpu_series(rules, h, ignore_host, &r->rules, NULL);
    out->newest_gpu_series = newest ? newest->series : NULL;
    out->why = out->newest_gpu_series && out->backends == &out->series_backends
                   ? TS_PLAN_CPU_OLDER_SERIES
                   : TS_PLAN_CPU_NO_GPU_BACKEND;
    return true;
  }
  return false;
}

void ts_plan_cpu_note_clear(struct ts_plan_cpu_note *n) {
  ts_constraint_set_clear(&n->series_backends);
}

char *ts_plan_cpu_note_text(const struct ts_plan_cpu_note *n) {
  const struct ts_resolved *x = n->item;
  if (n->why == TS_PLAN_CPU_RULED_OUT)
    return ts_xasprintf("%s %s is a CPU build: no GPU build fits the other requirements",
                        x->name, x->version);
  if (n->why == TS_PLAN_CPU_OLDER_SERIES)
    return ts_xasprintf("%s %s is a CPU build: torch %s has no build for this host's "
                        "GPU; the newest torch with one is %s, which the other "
                        "requirements rule out (see 'torchsolve detect')",
                        x->name, x->version, n->series, n->newest_gpu_series);
  return ts_xasprintf("%s %s is a CPU build: this host has no usable GPU backend "
                      "(see 'torchsolve detect')", x->name, x->version);
}

char *ts_plan_held_back_note(const struct ts_plan_result *r) {
  const struct ts_held_back *hb = r->res ? r->res->held_back : NULL;
  if (!hb)
    return NULL;
  if (!hb->runnable)
    return ts_xasprintf("%s %s is the newest %s whose GPU build runs on this "
                        "host: %s", hb->name, hb->chosen, hb->name, hb->reason);
  if (hb->fallback)
    return ts_xasprintf("%s %s is a CPU build: %s %s runs on this host's GPU, "
                        "but %s", hb->name, hb->chosen, hb->name, hb->runnable,
                        hb->reason);
  return ts_xasprintf("%s %s is held back: %s %s runs on this host, but %s",
                      hb->name, hb->chosen, hb->name, hb->runnable, hb->reason);
}

void ts_plan_note_broken_installed(struct ts_plan_result *r, const struct ts_constraint_set *set) {
  size_t n = r->res ? r->res->nitems : 0;
  struct ts_installed *pk = ts_xcalloc(n + 1, sizeof *pk);
  for (size_t i = 0; i < n; i++) {
    const struct ts_resolved *x = &r->res->items[i];
    pk[i] = (struct ts_installed){x->name, x->version};
  }
  for (size_t i = 0; i < n; i++) {
    const struct ts_resolved *x = &r->res->items[i];
    if (!x->installed_version || x->action == TS_ACTION_KEEP)
      continue;
    /* the answer with this one as it is installed now */
    pk[i].version = x->installed_version;
    struct ts_rules_finding *f = NULL;
    size_t nf = 0;
    struct ts_error ignore = {0};
    char *subject = ts_xasprintf("%s %s", x->name, x->installed_version);
    if (ts_rules_check_installed(set, pk, n, &f, &nf, &ignore) == TS_OK)
      for (size_t k = 0; k < nf; k++)
        if (f[k].subject && strcmp(f[k].subject, subject) == 0) {
          r->notes = ts_xreallocarray(r->notes, r->nnotes + 1, sizeof *r->notes);
          r->notes[r->nnotes++] = ts_xasprintf(
              "installed %s is replaced: %s (rule %s: %s)", subject,
              f[k].detail ? f[k].detail : "it breaks a rule here", f[k].id, f[k].message);
          break;
        }
    ts_rules_findings_free(f, nf);
    free(subject);
    pk[i].version = x->version;
  }
  free(pk);
}
