/*
 * target/open.c — the target install, lock and sync share (target.h:
 * ts_target_open).
 */
#include <stdlib.h>
#include <unistd.h>

#include "core/fs.h"
#include "target/target.h"

enum ts_code ts_target_open_python(const char *python, bool run_python,
                                   const char *probe_cache_dir, struct ts_target **t,
                                   struct ts_error *err) {
  char *located = NULL;
  enum ts_code rc = ts_target_locate(python, &located, err);
  if (rc != TS_OK)
    return rc;
  if (located[0] != '/') {
    char *cwd = getcwd(NULL, 0);
    char *abs = ts_path_join(cwd ? cwd : ".", located);
    free(cwd);
    free(located);
    located = abs;
  }
  rc = run_python ? ts_target_probe_python(located, probe_cache_dir, t, err)
                  : ts_target_probe(located, probe_cache_dir, t, err);
  free(located);
  return rc;
}

enum ts_code ts_target_open(const char *python, const struct ts_target_spec *spec,
                            const char *probe_cache_dir, struct ts_target **t,
                            struct ts_error *err) {
  if (spec)
    return ts_target_from_spec(spec, t, err);
  return ts_target_open_python(python, false, probe_cache_dir, t, err);
}
