/* The machine a recorded fleet profile stands for: see profile_choice.h. */
#include "plan/profile_choice.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "plan/torch_backend.h"

/* "8.9,9.0" from the facts "__cc_8.9", "__cc_9.0" (prefix "__cc_", skip
 * 5; "__gfx942" → "gfx942" with skip 2), or NULL when there are none. */
static char *targets(const struct ts_pylock_profile *p, const char *prefix, size_t skip)
{
  struct ts_buf b;
  ts_buf_init(&b, 0);
  for (size_t i = 0; i < p->nhost_facts; i++)
    if (strncmp(p->host_facts[i].key, prefix, strlen(prefix)) == 0)
      ts_buf_xprintf(&b, "%s%s", b.len ? "," : "", p->host_facts[i].key + skip);
  if (!b.len) {
    ts_buf_clear(&b);
    return NULL;
  }
  return ts_buf_take(&b, NULL);
}

enum ts_code ts_profile_locked_host(const struct ts_pylock_profile *p,
                                    const struct ts_rules *rules, const struct ts_host *base,
                                    struct ts_host *out, struct ts_error *err)
{
  memset(out, 0, sizeof *out);
  const struct ts_rules_backend *b =
      p->backend && rules ? ts_rules_find_backend(rules, p->backend) : NULL;
  if (!b)
    return ts_error_set(err, TS_E_INVALID,
                        "profile %s: its backend %s is no backend of rules.yaml", p->name,
                        p->backend ? p->backend : "(none recorded)");
  if (base) {
    out->machine = ts_xstrdup(base->machine);
    out->os = ts_xstrdup(base->os);
    out->glibc = ts_xstrdup(base->glibc);
    out->cpu_flags = ts_xstrdup(base->cpu_flags);
  }
  char *cc = targets(p, "__cc_", 5), *gfx = targets(p, "__gfx", 2);
  char *source = ts_xasprintf("--profile %s", p->name);
  enum ts_code rc = ts_torch_backend_host(b, cc, gfx, source, out, err);
  free(source);
  free(cc);
  free(gfx);
  if (rc != TS_OK) {
    ts_error_wrap(err, "profile %s", p->name);
    ts_host_clear(out);
  }
  return rc;
}
