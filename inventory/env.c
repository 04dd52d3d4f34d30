/*
 * inventory/env.c — an existing environment, located, probed and read
 * (see env.h).
 */
#include "inventory/env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fs.h"
#include "core/str.h"

enum ts_code ts_plan_env_open(const char *python, const char *probe_cache_dir,
                              struct ts_plan_env *env, struct ts_error *err) {
  memset(env, 0, sizeof *env);
  /* located as install and sync locate it (absolute, not resolved) */
  enum ts_code rc = ts_target_open(python, NULL, probe_cache_dir, &env->target, err);
  if (rc != TS_OK)
    return rc;
  env->python = ts_xstrdup(env->target->python);
  const struct ts_target_paths *p = &env->target->paths;
  if (!p->purelib || !p->platlib || !p->scripts || !p->data || !p->prefix)
    return ts_error_set(err, TS_E_PYTHON, "'%s' reported no install paths",
                        env->python);
  env->headers = ts_xasprintf("%s/include/site/python%d.%d", p->data,
                              env->target->python_major, env->target->python_minor);
  env->paths = (struct ts_wheel_paths){.prefix = p->prefix, .purelib = p->purelib,
                                       .platlib = p->platlib, .scripts = p->scripts,
                                       .data = p->data, .headers = env->headers,
                                       .python = env->python,
                                       .python_major = env->target->python_major,
                                       .python_minor = env->target->python_minor};
  const char *dirs[2] = {p->purelib, p->platlib};
  return ts_installed_read(dirs, 2, &env->installed, err);
}

void ts_plan_env_close(struct ts_plan_env *env) {
  ts_installed_clear(&env->installed);
  if (env->target)
    ts_target_free(env->target);
  free(env->headers);
  free(env->python);
  memset(env, 0, sizeof *env);
}
