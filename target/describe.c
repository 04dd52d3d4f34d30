/*
 * target/describe.c — a target as JSON, for `torchsolve detect --python`
 * (target.h: ts_target_to_json).
 */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/str.h"
#include "target/target.h"
#include "target/venvread.h"

static void add_str(cJSON *o, const char *key, const char *v)
{
  if (!(v ? cJSON_AddStringToObject(o, key, v) : cJSON_AddNullToObject(o, key)))
    abort();
}

static cJSON *parse_or_abort(const char *text)
{
  cJSON *v = cJSON_Parse(text);
  if (!v)
    abort();
  return v;
}

struct cJSON *ts_target_to_json(const struct ts_target *t)
{
  cJSON *o = cJSON_CreateObject();
  if (!o)
    abort();
  add_str(o, "source", t->from_spec    ? "spec"
                       : t->from_files ? "files"
                       : t->from_cache ? "cache"
                                       : "probe");
  add_str(o, "python", t->python);
  /* why a run was needed: the first fact the venv's files left uncertain */
  if (t->python && t->python[0] == '/') {
    char *json = NULL;
    struct ts_error why = {0};
    bool readable = ts_venv_read_probe_json(t->python, &json, &why) == TS_OK;
    free(json);
    add_str(o, "files_unusable", readable ? NULL : why.detail);
  }
  add_str(o, "executable", t->executable);
  char buf[64];
  snprintf(buf, sizeof buf, "%d.%d.%d", t->python_major, t->python_minor, t->python_micro);
  add_str(o, "version", buf);
  add_str(o, "implementation", t->implementation);
  add_str(o, "abiflags", t->abi_flags);
  snprintf(buf, sizeof buf, "%s %d.%d", t->libc == TS_LIBC_GLIBC ? "glibc" : "musl",
           t->libc_major, t->libc_minor);
  add_str(o, "libc", t->libc == TS_LIBC_NONE ? NULL : buf);
  add_str(o, "tag_arch", t->tag_arch);
  char *env = ts_target_environment_json(t);
  cJSON_AddItemToObject(o, "markers", parse_or_abort(env));
  free(env);
  cJSON *p = cJSON_AddObjectToObject(o, "paths");
  if (!p)
    abort();
  add_str(p, "purelib", t->paths.purelib);
  add_str(p, "platlib", t->paths.platlib);
  add_str(p, "scripts", t->paths.scripts);
  add_str(p, "data", t->paths.data);
  add_str(p, "include", t->paths.include);
  add_str(o, "prefix", t->paths.prefix);
  add_str(o, "base_prefix", t->paths.base_prefix);
  cJSON_AddBoolToObject(o, "is_venv", t->is_venv);
  cJSON *tags = cJSON_AddArrayToObject(o, "tags");
  if (!tags)
    abort();
  for (size_t i = 0; i < ts_tagset_count(t->tags); i++) {
    char *s = ts_tag_str(ts_tagset_at(t->tags, i));
    cJSON_AddItemToArray(tags, cJSON_CreateString(s));
    free(s);
  }
  return o;
}

char *ts_target_summary(const struct ts_target *t)
{
  return ts_xasprintf("%s %s (%s%d%d%s) at %s, %s", t->markers.implementation_name,
                      t->markers.python_full_version, t->implementation, t->python_major,
                      t->python_minor, t->abi_flags,
                      t->paths.prefix ? t->paths.prefix : t->python,
                      t->from_files ? "read from its files" : t->from_cache ? "cached probe" : "run");
}
